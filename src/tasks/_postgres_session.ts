/**
 * The startup parameters of every connection the PostgreSQL store opens (private to the tasks
 * folder): its application name, and `idle_in_transaction_session_timeout`, so that the server
 * ends the session of a worker paused inside a transaction (a stopped VM, a SIGSTOP) and its row
 * locks do not stall every other worker (PostgreSQL 15 manual, "Client Connection Defaults").
 *
 * @module
 */

/**
 * The parameters, as the `postgres` driver's `connection` option takes them.
 *
 * @param idleInTransactionTimeoutMs How long a session may stay idle inside a transaction, in ms.
 * @example
 * ```ts
 * import { storeSessionParameters } from "./_postgres_session.ts";
 * const parameters = storeSessionParameters(1500);
 * console.assert(parameters.idle_in_transaction_session_timeout === 1500);
 * ```
 */
export function storeSessionParameters(
  idleInTransactionTimeoutMs: number,
): { application_name: string; idle_in_transaction_session_timeout: number } {
  return {
    application_name: "kagent-run tasks",
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
  };
}
