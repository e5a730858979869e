/**
 * Writes the published JSON Schemas of the config and permissions formats to docs/.
 * `deno task schemas`; a test fails when the committed files differ from the code.
 *
 * @module
 */

import { configJsonSchema, permissionsJsonSchema } from "../src/config/mod.ts";

/** The files and their contents, as the code defines them. */
export function schemaFiles(): Record<string, string> {
  return {
    "docs/config.schema.json": JSON.stringify(configJsonSchema(), null, 2) + "\n",
    "docs/permissions.schema.json": JSON.stringify(permissionsJsonSchema(), null, 2) + "\n",
  };
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  for (const [path, text] of Object.entries(schemaFiles())) {
    await Deno.writeTextFile(new URL(path, root), text);
    console.log(`wrote ${path}`);
  }
}
