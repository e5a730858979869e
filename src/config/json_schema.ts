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
 * refused (`additionalProperties: false`); `mcpServers` is accepted as the other clients' spelling
 * of `mcp_servers` (not both). Checks that need the file system (paths exist, write
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
  const schema = z.toJSONSchema(ConfigFileSchema, { target: "draft-07" }) as
    & Record<
      string,
      unknown
    >
    & { properties: Record<string, Record<string, unknown>> };
  // A pasted `mcpServers` (Claude Desktop, Claude Code, Cursor) is read as `mcp_servers` by the
  // loader (`_mcp_servers_key.ts`): an editor must accept it too, and refuse both at once.
  const servers = schema.properties.mcp_servers;
  if (servers !== undefined) {
    schema.properties.mcpServers = {
      ...servers,
      description: 'The same as "mcp_servers", spelled as Claude Desktop, Claude Code and Cursor ' +
        "write it (paste their block as it is); a file sets one of the two.",
    };
    schema.not = { required: ["mcp_servers", "mcpServers"] };
  }
  return schema;
}

/**
 * The JSON Schema (draft-07) of a permissions.json file; see {@linkcode configJsonSchema}.
 *
 * @returns A fresh JSON-compatible object on every call.
 */
export function permissionsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(PermissionsFileSchema, { target: "draft-07" });
}
