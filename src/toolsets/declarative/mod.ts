/**
 * Declarative tools: command tools written as data (`tools.declarative` files), loaded and checked
 * at start-up on the main thread and turned into tool definitions in the Worker.
 *
 * @module
 */

export { type DeclarativeToolFile } from "./declarative_tool_file.ts";
export { loadDeclarativeTools } from "./load_declarative_tools.ts";
