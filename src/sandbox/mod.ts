/**
 * The sandbox: the path guard, verified file operations, walks, and the tool Worker.
 *
 * @module
 */

export * from "./path_guard.ts";
export * from "./safe_file.ts";
export * from "./atomic_write.ts";
export * from "./walk.ts";
export * from "./time_budget.ts";
