/**
 * The command line interface.
 *
 * @module
 */

export { main, MAIN_HELP, VERSION } from "./main_command.ts";
export { type CommandIo, DEFAULT_CONFIG, EXIT, processIo, UsageError } from "./_common.ts";
export { enterUserFolder } from "./launch_form.ts";
