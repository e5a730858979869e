/**
 * The command line interface.
 *
 * @module
 */

export { main } from "./main_command.ts";
export { processIo } from "./_common.ts";
export { enterUserFolder } from "./launch_form.ts";
