/**
 * JSONC parsing private to the config folder: comments and trailing commas allowed, every syntax
 * error reported with a line and a column, repeated keys refused.
 *
 * @module
 */

import { type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";

/** A parsed document, or the first syntax problem with its 1-based position. */
export type JsoncParseResult =
  | { ok: true; value: unknown }
  | { ok: false; line: number; column: number; reason: string };

/** Reasons by `printParseErrorCode` name (ParseErrorCode is a const enum, unusable here). */
const REASONS: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in a string",
};

/**
 * Parses JSONC text (JSON with comments and trailing commas).
 *
 * Objects are built with own properties only, so a `"__proto__"` key is an ordinary (and, for our
 * strict schemas, unknown) key rather than a prototype change. A key repeated in one object is a
 * syntax problem: with JSON's "last one wins", `"decision": "deny", "decision": "allow"` would
 * silently loosen a policy.
 *
 * @param text The file content; a leading byte order mark is ignored.
 */
export function parseJsonc(text: string): JsoncParseResult {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const errors: ParseError[] = [];
  const tree = parseTree(source, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first !== undefined) {
    return {
      ok: false,
      ...position(source, first.offset),
      reason: REASONS[printParseErrorCode(first.error)] ?? "invalid JSON",
    };
  }
  if (tree === undefined) return { ok: false, line: 1, column: 1, reason: "expected a value" };
  const duplicate = findDuplicateKey(tree);
  if (duplicate !== null) {
    return {
      ok: false,
      ...position(source, duplicate.offset),
      reason: `key "${duplicate.key}" is repeated`,
    };
  }
  return { ok: true, value: nodeValue(tree) };
}

/** 1-based line and column (in UTF-16 code units) of `offset` in `text`. */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function findDuplicateKey(node: Node): { key: string; offset: number } | null {
  if (node.type === "object") {
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const keyNode = property.children?.[0];
      if (keyNode === undefined) continue;
      const key = String(keyNode.value);
      if (seen.has(key)) return { key, offset: keyNode.offset };
      seen.add(key);
    }
  }
  for (const child of node.children ?? []) {
    const found = findDuplicateKey(child);
    if (found !== null) return found;
  }
  return null;
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object": {
      const result: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (keyNode === undefined || valueNode === undefined) continue;
        Object.defineProperty(result, String(keyNode.value), {
          value: nodeValue(valueNode),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return result;
    }
    case "array":
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}
