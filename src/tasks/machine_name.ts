/**
 * The name of the machine a worker runs on, recorded as the owner's machine of the steps it
 * claims (`kagent-run task show` prints it).
 *
 * @module
 */

let cached: string | null = null;

/**
 * The host name: `Deno.hostname()` when `--allow-sys` grants it, else the kernel's
 * (`/proc/sys/kernel/hostname`, read permission), else `$HOSTNAME`, else `"unknown"`. Read once.
 *
 * @example
 * ```ts
 * import { machineName } from "./machine_name.ts";
 * console.assert(machineName().length > 0);
 * ```
 */
export function machineName(): string {
  if (cached !== null) return cached;
  const candidates: (() => string | undefined)[] = [
    () => Deno.hostname(),
    () => Deno.readTextFileSync("/proc/sys/kernel/hostname"),
    () => Deno.env.get("HOSTNAME"),
  ];
  for (const candidate of candidates) {
    try {
      const name = candidate()?.trim();
      if (name !== undefined && name.length > 0) return cached = name;
    } catch {
      // Not permitted or not there: the next source.
    }
  }
  return cached = "unknown";
}
