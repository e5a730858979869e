/**
 * The sandbox: the path guard, verified file operations and walks.
 *
 * @module
 */

export * from "./path_guard.ts";
export * from "./safe_file.ts";
export * from "./atomic_write.ts";
export * from "./walk.ts";
export * from "./time_budget.ts";
