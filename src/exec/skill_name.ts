/**
 * The Agent Skills name rule (agentskills.io specification, as its reference validator `skills-ref`
 * applies it): 1 to 64 characters counted in Unicode code points (not UTF-16 units), each a letter
 * or digit of any script or a hyphen, lower-case, no hyphen first, last or twice in a row. The
 * reference normalises names to NFKC before checking; a skill id given to a tool must already be
 * in NFKC, so that no two spellings name the same folder.
 *
 * @module
 */

/** Letters and digits of any script in words joined by single hyphens (case checked apart). */
export const SKILL_NAME_PATTERN = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*$/u;

/** Longest skill name, in Unicode code points. */
export const MAX_SKILL_NAME_LENGTH = 64;

/**
 * Tells what is wrong with a skill name, or null when it follows the rule. The name is checked as
 * given: normalise a frontmatter name with `name.normalize("NFKC")` first, as the reference does.
 *
 * @param name The name, e.g. `pdf-processing`, `données`, `数据分析`.
 * @returns null, or a reason such as `it must be lower-case` (no prefix).
 * @example
 * ```ts
 * import { skillNameProblem } from "./skill_name.ts";
 * console.assert(skillNameProblem("données") === null);
 * console.assert(skillNameProblem("../x") !== null);
 * ```
 */
export function skillNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > MAX_SKILL_NAME_LENGTH) {
    return `it must be 1 to ${MAX_SKILL_NAME_LENGTH} characters long, got ${length}`;
  }
  if (name.startsWith("-") || name.endsWith("-")) return "it must not start or end with a hyphen";
  if (name.includes("--")) return "it must not contain two hyphens in a row";
  if (!SKILL_NAME_PATTERN.test(name)) {
    return "it may contain only letters, digits and hyphens";
  }
  if (name !== name.toLowerCase()) return "it must be lower-case";
  if (name !== name.normalize("NFKC")) return "it must be in Unicode normal form NFKC";
  return null;
}
