/**
 * `{{field}}` templates of declarative tools. Values come from validated input; nothing is ever
 * evaluated. Exec mode substitutes inside each argv element separately (an element that is exactly
 * one template of an absent optional field is dropped); shell mode single-quotes every
 * substitution POSIX-style, which keeps a value one literal word only where the placeholder stands
 * bare: the loader refuses a script with one inside quotes, `$(…)`, backticks, a here-document or a
 * comment (`analyzeShellTemplate`, shell_template.ts).
 *
 * @module
 */

const TEMPLATE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Field names a template string uses. */
export function templateFields(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((match) => match[1] as string);
}

/** A scalar input value as text: strings as they are, numbers and booleans as JSON. */
function scalar(value: unknown, field: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  throw new TypeError(
    `Cannot substitute "{{${field}}}": only string, number and boolean fields can be substituted`,
  );
}

/**
 * Fills exec-mode argv elements. @throws {TypeError} when a field holds an object or array.
 */
export function fillArgv(elements: readonly string[], input: Record<string, unknown>): string[] {
  const filled: string[] = [];
  for (const element of elements) {
    const only = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(element);
    if (only !== null && input[only[1] as string] === undefined) continue;
    filled.push(
      element.replace(
        TEMPLATE,
        (_, field: string) => input[field] === undefined ? "" : scalar(input[field], field),
      ),
    );
  }
  return filled;
}

/** POSIX single quoting: `it's` → `'it'\''s'`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Fills a shell-mode script, every substitution single-quoted. Only for a script that
 * `analyzeShellTemplate` accepted. @throws {TypeError} as {@linkcode fillArgv}.
 */
export function fillShell(script: string, input: Record<string, unknown>): string {
  return script.replace(
    TEMPLATE,
    (_, field: string) => shellQuote(input[field] === undefined ? "" : scalar(input[field], field)),
  );
}
