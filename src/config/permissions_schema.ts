/**
 * The permissions format (ARCHITECTURE §4): the `permissions.json` file, or the inline `permissions`
 * object of a config file.
 *
 * @module
 */

import { z } from "zod";
import { parseHostPattern } from "./host_pattern.ts";

/** How asks are answered: `default` asks a person (or a grant); `smart` may answer from annotations. */
export const PERMISSION_MODES = ["default", "smart"] as const;

/** One of {@linkcode PERMISSION_MODES}. */
export type PermissionMode = typeof PERMISSION_MODES[number];

/** The three decisions a rule can give, in increasing strength: deny beats ask beats allow. */
export const PERMISSION_DECISIONS = ["allow", "ask", "deny"] as const;

/** One of {@linkcode PERMISSION_DECISIONS}. */
export type PermissionDecision = typeof PERMISSION_DECISIONS[number];

const patternList = (description: string) => z.array(z.string().min(1)).describe(description);

/**
 * One rule as written in a permissions file. `id` is optional here; loading fills it (see
 * {@linkcode PermissionRule}).
 */
export const PermissionRuleSchema = z.strictObject({
  id: z.string().min(1).optional().describe(
    'Unique name of the rule, shown in decisions and audit logs. Default: "config:<index>".',
  ),
  tools: patternList(
    'Glob patterns over canonical dotted tool names, e.g. "fs.*", "fs.read_file", "*".',
  ).min(1),
  tags: patternList("The rule applies only to tools carrying every one of these tags.").min(1)
    .optional(),
  paths: patternList(
    "Glob patterns over target paths, relative to the workspace or absolute. An allow needs every " +
      "path of a call to match; ask and deny need one.",
  ).min(1).optional(),
  commands: patternList(
    "The rule applies only to commands running these programs (names as allowlisted in the " +
      'config\'s "commands", or absolute paths).',
  ).min(1).optional(),
  arguments: patternList(
    "Glob patterns over a command's arguments (argv[1..], each element on its own, never a " +
      'joined string); the rule applies when one argument matches. Needs "commands" or ' +
      "applies to every program.",
  ).min(1).optional(),
  argument_prefix: patternList(
    "Glob patterns, in order, that a command's first arguments (argv[1], argv[2], ...) must " +
      'match one for one: ["test"] covers "npm test" (and "npm test -- --watch"), ["run", ' +
      '"lint"] covers "npm run lint" but not "npm run build". Further arguments are free.',
  ).min(1).optional(),
  hosts: z.array(
    z.string().min(1).superRefine((text, context) => {
      try {
        parseHostPattern(text);
      } catch (error) {
        context.addIssue({ code: "custom", message: (error as Error).message, input: text });
      }
    }),
  ).min(1).optional().describe(
    'Host patterns over the hosts a call reaches (net.fetch): "api.github.com", ' +
      '"*.example.com", "host:8443", "host:*"; without a port, 80 and 443. The rule applies only ' +
      "to calls with a host; an allow needs every host to match. An allow of net.fetch that " +
      "names it exactly with hosts lets those calls run without asking.",
  ),
  decision: z.enum(PERMISSION_DECISIONS).describe(
    "What a matching call gets. Across layers, deny beats ask beats allow.",
  ),
  reason: z.string().optional().describe("Why, shown to the user and recorded."),
});

/**
 * A whole permissions file: `{ "$schema"?, "rules": [...] }`. Unknown keys are errors, nothing is
 * coerced (`"decision": "allow "` and `"tools": "fs.*"` are refused), and rule ids (given or
 * defaulted to `config:<index>`) must be unique.
 */
export const PermissionsFileSchema = z.strictObject({
  $schema: z.string().optional().describe("JSON Schema of this file, for editors; ignored."),
  mode: z.enum(PERMISSION_MODES).optional().describe(
    '"smart": a call that would ask a person (by a rule of this file, or because write tools ask ' +
      "by default) runs without asking when its tool's annotations say read-only, not " +
      'destructive, not open-world, risk at most "smart_max_risk", and no confirmation required; ' +
      'recorded with rule "smart:annotations". Asks of kagent-run\'s own (sensitive paths, ' +
      'high-risk tools, unconfined commands), of skills and of hooks still ask. Default: "default".',
  ),
  smart_max_risk: z.int().min(0).max(4).optional().describe(
    'The highest risk level (0 Safe … 4 Critical) "smart" mode lets run unasked. Default: 0.',
  ),
  rules: z.array(PermissionRuleSchema).describe("Rules, checked together: the strongest wins."),
}).superRefine((file, context) => {
  const firstIndexOfId = new Map<string, number>();
  file.rules.forEach((rule, index) => {
    const id = ruleId(rule, index);
    const earlier = firstIndexOfId.get(id);
    if (earlier === undefined) firstIndexOfId.set(id, index);
    else {
      context.addIssue({
        code: "custom",
        path: ["rules", index, "id"],
        message: `must be unique: "${id}" is also the id of rules[${earlier}]`,
        input: rule.id,
      });
    }
  });
});

/** A permissions file as written (rule ids optional), the input of {@linkcode PermissionsFileSchema}. */
export type PermissionsFile = z.infer<typeof PermissionsFileSchema>;

/** One rule as written, ids optional. */
export type PermissionRuleInput = z.infer<typeof PermissionRuleSchema>;

/**
 * One rule after loading: like {@linkcode PermissionRuleInput}, with `id` always set (the given id,
 * or `config:<index>`). Absent `tags`, `paths`, `commands` and `reason` stay absent: an absent filter
 * means "any", which an empty list would not.
 */
export type PermissionRule = PermissionRuleInput & { id: string };

/** Loaded permissions: the rules with their ids filled, the mode and its risk bound. */
export interface LoadedPermissions {
  rules: PermissionRule[];
  /** @default "default" */
  mode: PermissionMode;
  /** The highest risk `smart` mode lets run unasked, 0–4. @default 0 */
  smart_max_risk: number;
}

/**
 * The id a rule gets: its own, or `config:<index>` (0-based position in `rules`).
 *
 * @example
 * ```ts
 * import { ruleId } from "./permissions_schema.ts";
 * console.assert(ruleId({}, 2) === "config:2");
 * console.assert(ruleId({ id: "reads" }, 0) === "reads");
 * ```
 */
export function ruleId(rule: { id?: string | undefined }, index: number): string {
  return rule.id ?? `config:${index}`;
}

/**
 * Fills rule ids, the mode and its risk bound of a parsed permissions file (uniqueness is checked by
 * {@linkcode PermissionsFileSchema}).
 */
export function withRuleIds(file: PermissionsFile): LoadedPermissions {
  return {
    rules: file.rules.map((rule, index) => ({ ...rule, id: ruleId(rule, index) })),
    mode: file.mode ?? "default",
    smart_max_risk: file.smart_max_risk ?? 0,
  };
}
