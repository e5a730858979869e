/**
 * The error every config and permissions loading failure is reported with.
 *
 * @module
 */

/**
 * What went wrong, by file and stage:
 *
 * - `config_not_found`: the config file does not exist or cannot be read.
 * - `config_syntax`: the config file is not valid JSONC (or repeats a key).
 * - `config_invalid`: the config parses but a key is unknown, has the wrong type, or names a path
 *   that does not fit (missing workspace, write root outside the workspace, ...).
 * - `permissions_not_found`: the permissions file named by the config does not exist or cannot be
 *   read.
 * - `permissions_syntax`: the permissions file is not valid JSONC (or repeats a key).
 * - `permissions_invalid`: the permissions file parses but does not fit the permissions format.
 * - `mcp_server_failed`: a required MCP server of `mcp_servers` could not start or list its tools.
 */
export type ConfigErrorCode =
  | "config_not_found"
  | "config_syntax"
  | "config_invalid"
  | "permissions_not_found"
  | "permissions_syntax"
  | "permissions_invalid"
  | "commands_invalid"
  | "tool_invalid"
  | "mcp_server_failed";

/** The fields of a {@linkcode ConfigError}, as given to its constructor. */
export interface ConfigErrorOptions {
  /** Which stage failed. */
  code: ConfigErrorCode;
  /** Absolute path of the file at fault (the config file, or the permissions file). */
  file: string;
  /** Dotted key inside {@linkcode ConfigErrorOptions.file} (`sandbox.write_roots[0]`), or `null`. */
  key: string | null;
  /** The whole sentence, house style: `Cannot load config "a.jsonc": key "x" must be a string`. */
  message: string;
  /**
   * Every problem found, each as `key "x" <reason>` (or the bare reason when no key applies).
   * @default a one-item list: the part of `message` after its first `": "`
   */
  issues?: string[];
}

/**
 * A user's config or permissions file cannot be used. The message names the file, the key and the
 * reason, so that a person reading a CI log knows what to change; `issues` lists every problem found
 * when there are several (the message names the first).
 *
 * The CLI maps it to exit status 2.
 *
 * @example
 * ```ts
 * import { ConfigError } from "./config_error.ts";
 * const error = new ConfigError({
 *   code: "config_invalid",
 *   file: "/home/me/agent.jsonc",
 *   key: "task",
 *   message: 'Cannot load config "agent.jsonc": key "task" must be a string',
 *   issues: ['key "task" must be a string'],
 * });
 * console.assert(error.code === "config_invalid");
 * ```
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** Which stage failed; see {@linkcode ConfigErrorCode}. */
  readonly code: ConfigErrorCode;
  /** Absolute path of the file at fault. */
  readonly file: string;
  /** Dotted key at fault inside {@linkcode ConfigError.file}, or `null` (syntax, missing file). */
  readonly key: string | null;
  /** Every problem found; the first is the one in the message. Never empty. */
  readonly issues: string[];

  /** Builds the error from its fields; see {@linkcode ConfigErrorOptions}. */
  constructor(options: ConfigErrorOptions) {
    super(options.message);
    this.code = options.code;
    this.file = options.file;
    this.key = options.key;
    const colon = options.message.indexOf(": ");
    this.issues = options.issues ??
      [colon === -1 ? options.message : options.message.slice(colon + 2)];
  }
}
