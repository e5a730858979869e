/**
 * The run services of a CLI command (private to the CLI folder): models made through the network
 * gateway's model channel, the command's approver, the shared task store when the config names
 * one.
 *
 * @module
 */

import type { Approver } from "../approval/mod.ts";
import type { RunServices } from "../assembly/mod.ts";
import type { NetworkGateway } from "../network/mod.ts";
import type { TaskStore } from "../tasks/mod.ts";
import type { CommandIo } from "./_common.ts";
import { providerFor } from "./_provider_for.ts";

/**
 * The services every run of this command is assembled with.
 *
 * @param gateway The network boundary opened for the command, or null (none needed).
 * @param approver Who answers asks (`approverFor`), or null.
 * @param taskStore The shared task store (`withRunBoundary`, `kagent-run worker`), or null.
 */
export function cliRunServices(
  io: CommandIo,
  gateway: NetworkGateway | null,
  approver: Approver | null,
  taskStore: TaskStore | null = null,
): RunServices {
  return {
    env: io.env,
    providerFor: (model) => providerFor(model, io, gateway),
    taskStore,
    approver,
    gateway,
  };
}
