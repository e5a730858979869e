/**
 * HTML built so that every interpolated value is escaped: {@linkcode html} is a tagged template
 * whose values are text unless they are {@linkcode SafeHtml} made by another `html` template.
 * Content from a run folder can therefore only ever become text, in element content or in a
 * double-quoted attribute value.
 *
 * @module
 */

/** HTML produced by {@linkcode html}: its text is markup, never escaped again. */
export class SafeHtml {
  readonly #markup: string;
  /** Use {@linkcode html}; this constructor does not check `markup`. */
  constructor(markup: string) {
    this.#markup = markup;
  }
  /** The markup. */
  toString(): string {
    return this.#markup;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes text for HTML element content and quoted attribute values: `&`, `<`, `>`, `"` and `'`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeHtml } from "./html_escape.ts";
 * assert.ok(escapeHtml(`<a href="x">'&'</a>`) === "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] as string);
}

/**
 * A tagged template for HTML: each value is escaped text, except {@linkcode SafeHtml} (kept) and
 * arrays (each item by the same rule, joined); null, undefined and false are left out. Attribute
 * values in the template must be double-quoted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { html } from "./html_escape.ts";
 * const payload = "<script>alert(1)</script>";
 * const row = html`<td title="${payload}">${payload}</td>`;
 * assert.ok(!String(row).includes("<script>"));
 * assert.ok(String(html`<tr>${[row]}</tr>`).startsWith("<tr><td"));
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let markup = strings[0] ?? "";
  values.forEach((value, index) => {
    markup += fragment(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(markup);
}

function fragment(value: unknown): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(fragment).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * The `href` of a file inside the run folder, relative to the report: `base` (the run folder as
 * seen from the report's folder, `""` when the report is inside it) and the path, each segment
 * percent-encoded, so that no segment can become a scheme, a query or a fragment, and a space or
 * a parenthesis cannot end a Markdown link.
 *
 * @param base `/`-separated relative path from the report's folder to the run folder.
 * @param path `/`-separated path inside the run folder.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runHref } from "./html_escape.ts";
 * assert.ok(runHref("", "deliverables/a b.md") === "deliverables/a%20b.md");
 * assert.ok(runHref("../runs/r1", "deliverables/javascript:x") === "../runs/r1/deliverables/javascript%3Ax");
 * assert.ok(runHref("../my runs/r(1)", "run.json") === "../my%20runs/r%281%29/run.json");
 * ```
 */
export function runHref(base: string, path: string): string {
  const encode = (relative: string) =>
    relative.split("/").map((segment) =>
      encodeURIComponent(segment).replace(
        /[()'!*]/g,
        (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
      )
    ).join("/");
  const folder = base.replace(/\/$/, "");
  return folder === "" ? encode(path) : `${encode(folder)}/${encode(path)}`;
}
