/**
 * The application policy: rules, layers, the effective policy of a run, and its decisions.
 *
 * @module
 */

export * from "./policy_rule.ts";
export * from "./effective_policy.ts";
export * from "./named_locations.ts";
export * from "./policy_hash.ts";
export * from "./runtime_rules.ts";
