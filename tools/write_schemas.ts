/**
 * Writes the published JSON Schemas of the config and permissions formats to docs/, and the
 * config key reference (docs/CONFIG.md) rendered from the config schema.
 * `deno task schemas`; a test fails when the committed files differ from the code.
 *
 * @module
 */

import { configJsonSchema, permissionsJsonSchema } from "../src/config/json_schema.ts";
import { configReference } from "./config_reference.ts";

/** The files and their contents, as the code defines them. */
export function schemaFiles(): Record<string, string> {
  return {
    "docs/config.schema.json": JSON.stringify(configJsonSchema(), null, 2) + "\n",
    "docs/permissions.schema.json": JSON.stringify(permissionsJsonSchema(), null, 2) + "\n",
    "docs/CONFIG.md": configReference(
      configJsonSchema() as Parameters<typeof configReference>[0],
    ),
  };
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  for (const [path, text] of Object.entries(schemaFiles())) {
    await Deno.writeTextFile(new URL(path, root), text);
    console.log(`wrote ${path}`);
  }
}
