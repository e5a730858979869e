/**
 * Confinement domains: who shares a private `HOME` and `TMPDIR` in a run. Commands, skill scripts
 * and declarative tools are one domain (`commands`, `runs/<id>/home` and `runs/<id>/tmp`); hooks
 * are another (`runs/<id>/domains/hooks/`); each stdio MCP server is its own
 * (`runs/<id>/domains/mcp-<server>/`). A process of one domain never gets another's folders: under
 * bubblewrap they are hidden (an empty read-only tmpfs over each) even when the runs folder lies
 * in a mounted root, so a file one domain plants in its home (`usercustomize.py`, `.npmrc`,
 * `.gitconfig`) is never read by a program of another.
 *
 * @module
 */

import * as nodePath from "node:path";
import { isWithin } from "../sandbox/mod.ts";

/** A confinement domain of a run. */
export type ConfinementDomain =
  /** Commands, skill scripts and declarative tools: they share one home. */
  | { kind: "commands" }
  /** Command hooks (PreToolUse, PostToolUse). */
  | { kind: "hooks" }
  /** One stdio MCP server, by its `mcp_servers` id. */
  | { kind: "mcp"; server: string };

/** The private folders of one domain (absolute). */
export interface DomainFolders {
  /** The domain's name: `commands`, `hooks` or `mcp-<server>`. */
  name: string;
  /** The domain's `HOME`. */
  home: string;
  /** The domain's `TMPDIR`. */
  tmpDir: string;
}

/**
 * The name of a domain: `commands`, `hooks`, or `mcp-<server>` (the id with every character
 * outside `[A-Za-z0-9_.-]` replaced by `_`, so it stays one path component).
 *
 * @example
 * ```ts
 * import { domainName } from "./confinement_domain.ts";
 * console.assert(domainName({ kind: "mcp", server: "files" }) === "mcp-files");
 * ```
 */
export function domainName(domain: ConfinementDomain): string {
  if (domain.kind !== "mcp") return domain.kind;
  const safe = domain.server.replace(/[^A-Za-z0-9_.-]/g, "_");
  return `mcp-${safe === "" || safe === "." || safe === ".." ? "_" : safe}`;
}

/**
 * Where a domain's `HOME` and `TMPDIR` are in the run folder `runDir`: `runDir/home` and
 * `runDir/tmp` for the commands (where they always were), `runDir/domains/<name>/{home,tmp}` for
 * every other domain. Creates nothing.
 *
 * @param runDir The run folder `runs/<id>/`, absolute.
 * @throws {TypeError} When `runDir` is not absolute.
 * @example
 * ```ts
 * import { domainFolders } from "./confinement_domain.ts";
 * const folders = domainFolders("/srv/runs/r1", { kind: "mcp", server: "files" });
 * console.assert(folders.home === "/srv/runs/r1/domains/mcp-files/home");
 * console.assert(domainFolders("/srv/runs/r1", { kind: "commands" }).home === "/srv/runs/r1/home");
 * ```
 */
export function domainFolders(runDir: string, domain: ConfinementDomain): DomainFolders {
  if (!nodePath.isAbsolute(runDir)) {
    throw new TypeError(
      `Cannot place a confinement domain: the run folder "${runDir}" is relative`,
    );
  }
  const name = domainName(domain);
  const base = domain.kind === "commands" ? runDir : nodePath.join(runDir, "domains", name);
  return { name, home: nodePath.join(base, "home"), tmpDir: nodePath.join(base, "tmp") };
}

/**
 * The run's folder that no confined process can write (it sits in the runs folder, bound
 * read-only): the protected-path watch's sentinel files and the scrubbed copies of repository
 * configs bound over `.git/config`, for every domain (commands and MCP servers alike).
 *
 * @param runDir The run folder, absolute.
 * @example
 * ```ts
 * import { runViewsFolder } from "./confinement_domain.ts";
 * console.assert(runViewsFolder("/runs/r1") === "/runs/r1/watch");
 * ```
 */
export function runViewsFolder(runDir: string): string {
  return nodePath.join(runDir, "watch");
}

/**
 * Creates the folders of every domain of a run (mode 0700), so that each can be hidden from the
 * others from the first process on: a folder created later would show through a bind of the runs
 * folder in a sandbox built before it existed.
 *
 * @param runDir The run folder, absolute.
 * @param domains Every domain the run may start a process in.
 * @returns The folders of each, in the order given.
 * @example
 * ```ts
 * import { prepareDomains } from "./confinement_domain.ts";
 * const run = await Deno.makeTempDir();
 * const [hooks] = await prepareDomains(run, [{ kind: "hooks" }]);
 * console.assert((await Deno.stat(hooks!.home)).isDirectory);
 * await Deno.remove(run, { recursive: true });
 * ```
 */
export async function prepareDomains(
  runDir: string,
  domains: readonly ConfinementDomain[],
): Promise<DomainFolders[]> {
  const all = domains.map((domain) => domainFolders(runDir, domain));
  for (const folders of all) {
    await Deno.mkdir(folders.home, { recursive: true, mode: 0o700 });
    await Deno.mkdir(folders.tmpDir, { recursive: true, mode: 0o700 });
  }
  return all;
}

/**
 * The folders of the other domains of `runDir` that exist now and lie inside one of `mounted`
 * (the roots a sandbox binds): each is to be hidden in `domain`'s sandbox. For the commands that is
 * `runDir/domains` as a whole; for any other domain, the commands' `home` and `tmp` and every
 * sibling under `runDir/domains`.
 *
 * @param mounted Absolute paths the sandbox binds (read-only or read-write).
 * @returns Absolute folders, sorted.
 * @example
 * ```ts
 * import { foreignDomainFolders, prepareDomains } from "./confinement_domain.ts";
 * const run = await Deno.makeTempDir();
 * await prepareDomains(run, [{ kind: "commands" }, { kind: "mcp", server: "a" }]);
 * const hidden = foreignDomainFolders(run, { kind: "mcp", server: "a" }, [run]);
 * console.assert(hidden.includes(`${run}/home`) && !hidden.some((path) => path.includes("mcp-a")));
 * await Deno.remove(run, { recursive: true });
 * ```
 */
export function foreignDomainFolders(
  runDir: string,
  domain: ConfinementDomain,
  mounted: readonly string[],
): string[] {
  const domainsDir = nodePath.join(runDir, "domains");
  const candidates: string[] = [];
  if (domain.kind === "commands") {
    candidates.push(domainsDir);
  } else {
    const own = domainName(domain);
    candidates.push(nodePath.join(runDir, "home"), nodePath.join(runDir, "tmp"));
    try {
      for (const entry of Deno.readDirSync(domainsDir)) {
        if (entry.name !== own) candidates.push(nodePath.join(domainsDir, entry.name));
      }
    } catch {
      // No other domain has folders yet.
    }
  }
  return candidates
    .filter((path) => isFolder(path) && mounted.some((root) => isWithin(path, root)))
    .sort();
}

function isFolder(path: string): boolean {
  try {
    return Deno.lstatSync(path).isDirectory;
  } catch {
    return false;
  }
}
