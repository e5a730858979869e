// Run by tests/network_boundary_test.ts in its own process: starts the network gateway with one
// allowed host, revokes the main thread's net permission as the CLI does, then tries every way
// out and prints what happened as one JSON line.
import { NetworkGateway } from "../../../src/network/mod.ts";

const [allowed, other] = Deno.args as [string, string];
const gateway = await NetworkGateway.start({
  channels: { model: [new URL(allowed).host], memory: [] },
});
Deno.permissions.revokeSync({ name: "net" });

async function attempt(run: () => Promise<Response>): Promise<string> {
  try {
    const response = await run();
    return `status ${response.status}: ${await response.text()}`;
  } catch (error) {
    return `refused: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  }
}

const model = gateway.fetchFor("model");
const results = {
  main_thread_state: Deno.permissions.querySync({ name: "net", host: new URL(allowed).host }).state,
  gateway_allowed: await attempt(() => model(allowed, { method: "POST", body: "{}" })),
  gateway_other_host: await attempt(() => model(other, { method: "POST", body: "{}" })),
  memory_channel_to_model_host: await attempt(() =>
    gateway.fetchFor("memory")(allowed, { method: "POST", body: "{}" })
  ),
  main_thread_fetch: await attempt(() => fetch(allowed, { method: "POST", body: "{}" })),
  new_worker_with_net: (() => {
    try {
      new Worker(new URL("data:application/javascript,"), {
        type: "module",
        deno: { permissions: { net: [new URL(allowed).host] } },
      } as WorkerOptions).terminate();
      return "started";
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
  })(),
};
gateway.close();
console.log(JSON.stringify(results));
