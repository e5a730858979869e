/**
 * JSON Schemas of the config and permissions formats, for editors (`"$schema"`) and for the
 * published docs. Generated from the zod schemas, so they cannot drift.
 *
 * @module
 */

import { z } from "zod";
import { ConfigFileSchema } from "./config_schema.ts";
import { PermissionsFileSchema } from "./permissions_schema.ts";

/**
 * The JSON Schema (draft-07, the draft editors support best) of a config file. Unknown keys are
 * refused (`additionalProperties: false`). Checks that need the file system (paths exist, write
 * roots inside the workspace) and rule id uniqueness are not expressible here; loading does them.
 *
 * @returns A fresh JSON-compatible object on every call.
 * @example
 * ```ts
 * import { configJsonSchema } from "./json_schema.ts";
 * const schema = configJsonSchema() as { additionalProperties: boolean };
 * console.assert(schema.additionalProperties === false);
 * ```
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigFileSchema, { target: "draft-07" });
}

/**
 * The JSON Schema (draft-07) of a permissions.json file; see {@linkcode configJsonSchema}.
 *
 * @returns A fresh JSON-compatible object on every call.
 */
export function permissionsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(PermissionsFileSchema, { target: "draft-07" });
}
