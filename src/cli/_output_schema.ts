/**
 * `--output-schema FILE`: a JSON Schema the run's final answer must match, as `claude -p
 * --json-schema` and `codex exec --output-schema` take one. The answer is parsed as JSON (a
 * fenced ```json block around it is accepted) and validated with Ajv; an answer that does not
 * parse or match makes the run fail with {@linkcode EXIT.outputInvalid}, the reasons recorded in
 * `run.completed` (`output_schema`) and printed.
 *
 * @module
 */

import { Ajv, type ValidateFunction } from "ajv";
import { EXIT, UsageError } from "./_common.ts";

/** A compiled `--output-schema`. */
export interface OutputSchema {
  /** The file as given on the command line. */
  path: string;
  validate: ValidateFunction;
}

/** The check of a final answer against the schema. */
export interface AnswerCheck {
  /** The schema file as given. */
  schema: string;
  valid: boolean;
  /** The parsed answer when it matches, else null. */
  value: unknown;
  /** Why not, one line each (Ajv's instance path and message), empty when valid. */
  errors: string[];
}

/**
 * Reads and compiles `--output-schema`, or null without it.
 *
 * @throws {UsageError} naming the file when it cannot be read, is not JSON or not a JSON Schema.
 */
export async function readOutputSchema(
  values: Record<string, unknown>,
): Promise<OutputSchema | null> {
  const path = values["output-schema"];
  if (typeof path !== "string") return null;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new UsageError(`Cannot read --output-schema "${path}": ${(error as Error).message}`);
  }
  try {
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    return { path, validate: ajv.compile(JSON.parse(text)) };
  } catch (error) {
    throw new UsageError(
      `Cannot use --output-schema "${path}": it is not a JSON Schema: ${(error as Error).message}`,
    );
  }
}

/**
 * Checks the final answer against the schema.
 *
 * @example
 * ```ts
 * import { Ajv } from "ajv";
 * import { checkAnswer } from "./_output_schema.ts";
 * const validate = new Ajv().compile({ type: "object", required: ["ok"] });
 * console.assert(checkAnswer({ path: "s.json", validate }, '{"ok": true}').valid);
 * console.assert(!checkAnswer({ path: "s.json", validate }, "ok").valid);
 * ```
 */
export function checkAnswer(schema: OutputSchema, answer: string | null): AnswerCheck {
  const failed = (errors: string[]): AnswerCheck => ({
    schema: schema.path,
    valid: false,
    value: null,
    errors,
  });
  if (answer === null || answer.trim() === "") return failed(["the run gave no final answer"]);
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n```\s*$/.exec(answer);
  let value: unknown;
  try {
    value = JSON.parse(fenced?.[1] ?? answer);
  } catch (error) {
    return failed([`the final answer is not JSON: ${(error as Error).message}`]);
  }
  if (schema.validate(value)) return { schema: schema.path, valid: true, value, errors: [] };
  return failed(
    (schema.validate.errors ?? []).map((error) =>
      `${error.instancePath === "" ? "the answer" : error.instancePath} ${error.message ?? ""}`
        .trim()
    ),
  );
}

/** The exit code of a run whose answer was checked: {@linkcode EXIT.outputInvalid} when it failed. */
export function exitWithAnswer(code: number, check: AnswerCheck | null): number {
  return check !== null && !check.valid && code === EXIT.ok ? EXIT.outputInvalid : code;
}
