/**
 * Entry module of the tool Worker: serves the run's tool set (`toolSet`, built from the init
 * message as the main thread built its registry). The compile task includes it
 * (`--include src/worker/worker_main.ts`).
 *
 * @module
 */

import { serveTools } from "./tool_worker_server.ts";

serveTools();
