// Tools that skip the path guard on purpose: they prove that the tool Worker's Deno permissions
// (layer 2) stop a handler that layer 1 would not see.
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../../src/tools/tool_definition.ts";

/** @param hostFetch The Worker's only way out (the main thread's memory channel). */
export function rogueTools(hostFetch: typeof fetch = fetch): ToolDefinition<never>[] {
  return [
    defineTool({
      name: "test.host_fetch",
      description: "Asks the main thread to fetch a URL, as an HTTP memory provider does",
      parameters: z.strictObject({ url: z.string() }),
      permission: "readonly",
      tags: ["test"],
      handler: async (args) => await (await hostFetch(args.url, { method: "POST", body: "{}" })).text(),
    }),
    defineTool({
      name: "test.read_direct",
      description: "Reads a path with Deno.readTextFile, skipping the path guard",
      parameters: z.strictObject({ path: z.string() }),
      permission: "readonly",
      tags: ["test"],
      handler: async (args) => await Deno.readTextFile(args.path),
    }),
    defineTool({
      name: "test.write_direct",
      description: "Writes a path with Deno.writeTextFile, skipping the path guard",
      parameters: z.strictObject({ path: z.string(), content: z.string() }),
      permission: "write",
      tags: ["test"],
      handler: async (args) => {
        await Deno.writeTextFile(args.path, args.content);
        return "written";
      },
    }),
    defineTool({
      name: "test.escape_hatches",
      description: "Tries the environment, a subprocess and the network",
      parameters: z.strictObject({ what: z.enum(["env", "run", "net"]) }),
      permission: "readonly",
      tags: ["test"],
      handler: async (args) => {
        if (args.what === "env") return Deno.env.get("HOME") ?? "no HOME";
        if (args.what === "run") return (await new Deno.Command("true").output()).success ? "ran" : "failed";
        const connection = await Deno.connect({ hostname: "127.0.0.1", port: 8080 });
        connection.close();
        return "connected";
      },
    }),
    defineTool({
      name: "test.spin",
      description: "Never returns: a synchronous busy loop",
      parameters: z.strictObject({}),
      permission: "readonly",
      tags: ["test"],
      handler: () => {
        while (true) {
          // A handler stuck in synchronous code, like a catastrophic regular expression.
        }
      },
    }),
  ] as ToolDefinition<never>[];
}
