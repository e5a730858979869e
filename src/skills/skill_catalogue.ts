/**
 * Finds the skills in the configured skill folders: each subfolder holding a `SKILL.md` with valid
 * frontmatter (see {@linkcode parseSkillDocument}). Invalid skills are reported and skipped, never
 * thrown; the first skill of a name wins across folders. Nothing is followed out of a skill folder:
 * a `SKILL.md` that is a symlink pointing elsewhere is refused, resources that are symlinks are
 * listed only when they name a regular file inside the skill, and symlinked folders are not walked.
 *
 * @module
 */

import * as nodePath from "node:path";
import { isWithin, printable } from "../sandbox/mod.ts";
import { mapAllowedTools } from "./allowed_tools.ts";

/** Largest `SKILL.md` read, in bytes. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Most resources listed per skill. */
export const MAX_RESOURCES = 500;
/** Deepest folder level walked below `scripts/`, `references/` and `assets/`. */
export const MAX_RESOURCE_DEPTH = 8;
/** The names a skill's file may have, in order: `skill.md` only when there is no `SKILL.md`. */
export const SKILL_FILE_NAMES = ["SKILL.md", "skill.md"] as const;
/** The folders of a skill whose files are listed as resources. */
export const RESOURCE_FOLDERS = ["scripts", "references", "assets"] as const;

/** A loaded skill. */
export interface Skill {
  /** The skill id: its folder's name (in NFKC), following `skillNameProblem`'s rule. */
  name: string;
  description: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  /**
   * The `allowed-tools` entries as written (`Read`, `Bash(git:*)`, `fs.*`); `[]` means it does not
   * narrow. What they map to: {@linkcode mapAllowedTools}.
   */
  allowed_tools: string[];
  /**
   * What was accepted but not used, one sentence each: allowed-tools entries kagent-run does not
   * know (dropped, so they narrow), metadata that is not a mapping. The skill still loads.
   */
  warnings: string[];
  /** Real absolute path of the skill folder. */
  path: string;
  /** The Markdown after the frontmatter. */
  body: string;
  /** Files under `scripts/`, `references/`, `assets/`, relative to `path`, sorted. */
  resources: string[];
  /** More than {@linkcode MAX_RESOURCES} files (or deeper than the walk goes) were found. */
  resources_truncated: boolean;
}

/** A skill that was not loaded: the file and a sentence saying why. */
export interface InvalidSkill {
  /** The `SKILL.md` (or folder) as found, absolute. */
  path: string;
  /** `Cannot load skill "x/SKILL.md": key "name" must match …` */
  reason: string;
}

/** What {@linkcode discoverSkills} found. */
export interface SkillCatalogue {
  /** Valid skills, by folder order then name order. */
  skills: Skill[];
  invalid: InvalidSkill[];
}

/**
 * Loads every skill in `dirs`. A folder in `dirs` that does not exist is reported once; subfolders
 * without a `SKILL.md` are not skills and are passed over silently.
 *
 * @param dirs Skill folders, absolute or relative to the current directory, in priority order.
 * @returns the valid skills and the invalid ones with reasons; never throws for a bad skill.
 * @example
 * ```ts
 * import { discoverSkills } from "./skill_catalogue.ts";
 * const { skills, invalid } = await discoverSkills(["skills"]);
 * console.log(skills.map((skill) => skill.name), invalid.length);
 * ```
 */
export async function discoverSkills(dirs: readonly string[]): Promise<SkillCatalogue> {
  const skills: Skill[] = [];
  const invalid: InvalidSkill[] = [];
  const seen = new Map<string, string>();
  for (const dir of dirs) {
    const absolute = nodePath.resolve(dir);
    let root: string;
    try {
      root = await Deno.realPath(absolute);
      if (!(await Deno.stat(root)).isDirectory) throw new Deno.errors.NotADirectory();
    } catch (error) {
      invalid.push({
        path: absolute,
        reason: `Cannot read skill folder "${printable(absolute)}": ${describeError(error)}`,
      });
      continue;
    }
    for (const entry of await listEntries(root)) {
      const outcome = await loadSkill(root, entry);
      if (outcome === null) continue;
      if ("reason" in outcome) {
        invalid.push(outcome);
        continue;
      }
      const first = seen.get(outcome.name);
      if (first !== undefined) {
        invalid.push({
          path: nodePath.join(outcome.path, "SKILL.md"),
          reason: `Cannot load skill "${outcome.name}/SKILL.md": a skill named "${outcome.name}" ` +
            `was already loaded from "${printable(first)}"`,
        });
        continue;
      }
      seen.set(outcome.name, outcome.path);
      skills.push(outcome);
    }
  }
  return { skills, invalid };
}

/** Loads one entry of a skill folder: a skill, a reason, or null when it is not a skill. */
async function loadSkill(root: string, entry: string): Promise<Skill | InvalidSkill | null> {
  const entryPath = nodePath.join(root, entry);
  // `SKILL.md`, or `skill.md` when there is none, as the reference validator looks for it.
  let fileName = "SKILL.md";
  let skillFile = nodePath.join(entryPath, fileName);
  const refuse = (reason: string): InvalidSkill => ({
    path: skillFile,
    reason: `Cannot load skill "${printable(`${entry}/${fileName}`)}": ${reason}`,
  });

  let folder: string;
  try {
    const info = await Deno.lstat(entryPath);
    if (!info.isDirectory && !info.isSymlink) return null;
    folder = await Deno.realPath(entryPath);
    if (!(await Deno.stat(folder)).isDirectory) return null;
  } catch {
    return null; // A dangling link or an entry gone since the listing: not a skill.
  }
  let fileInfo: Deno.FileInfo | null = null;
  for (const candidate of SKILL_FILE_NAMES) {
    fileName = candidate;
    skillFile = nodePath.join(entryPath, candidate);
    try {
      fileInfo = await Deno.lstat(skillFile);
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return refuse(describeError(error));
    }
  }
  if (fileInfo === null) return null;
  if (folder !== entryPath && !isWithin(folder, root)) {
    return refuse("the skill folder is a symlink pointing outside the skills folder");
  }

  let realFile: string;
  try {
    realFile = await Deno.realPath(skillFile);
  } catch (error) {
    return refuse(describeError(error));
  }
  if (!isWithin(realFile, folder)) {
    return refuse(`${fileName} is a symlink pointing outside the skill folder`);
  }
  if (fileInfo.isSymlink) fileInfo = await Deno.stat(realFile);
  if (!fileInfo.isFile) return refuse(`${fileName} is not a regular file`);

  const text = await readText(realFile);
  if (typeof text !== "string") return refuse(text.reason);
  // Loaded with the first SKILL.md: a run without skills never evaluates the YAML parser.
  const { parseSkillDocument } = await import("./skill_frontmatter.ts");
  const parsed = parseSkillDocument(text, nodePath.basename(entryPath));
  if (!parsed.ok) return refuse(parsed.reason);

  const { resources, truncated } = await listResources(folder);
  return {
    ...parsed.frontmatter,
    warnings: [
      ...parsed.frontmatter.warnings,
      ...mapAllowedTools(parsed.frontmatter.allowed_tools).warnings,
    ],
    path: folder,
    body: parsed.body,
    resources,
    resources_truncated: truncated,
  };
}

/** Reads a verified regular file as UTF-8, at most {@linkcode MAX_SKILL_FILE_BYTES}. */
async function readText(path: string): Promise<string | { reason: string }> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    return { reason: describeError(error) };
  }
  try {
    const info = await file.stat();
    if (!info.isFile) return { reason: "SKILL.md is not a regular file" };
    if (info.size > MAX_SKILL_FILE_BYTES) {
      return { reason: `SKILL.md is larger than ${MAX_SKILL_FILE_BYTES} bytes (${info.size})` };
    }
    const buffer = new Uint8Array(MAX_SKILL_FILE_BYTES + 1);
    let filled = 0;
    while (filled < buffer.byteLength) {
      const read = await file.read(buffer.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    if (filled > MAX_SKILL_FILE_BYTES) {
      return { reason: `SKILL.md is larger than ${MAX_SKILL_FILE_BYTES} bytes` };
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, filled));
    } catch {
      return { reason: "SKILL.md is not valid UTF-8 text" };
    }
  } catch (error) {
    return { reason: describeError(error) };
  } finally {
    file.close();
  }
}

/**
 * Lists the files below the resource folders without following symlinked folders. A symlink is
 * listed only when it names a regular file inside the skill folder.
 */
async function listResources(
  folder: string,
): Promise<{ resources: string[]; truncated: boolean }> {
  const resources: string[] = [];
  let truncated = false;
  const walk = async (relative: string, depth: number): Promise<void> => {
    for (const name of await listEntries(nodePath.join(folder, relative))) {
      if (resources.length >= MAX_RESOURCES) {
        truncated = true;
        return;
      }
      const child = nodePath.join(relative, name);
      const absolute = nodePath.join(folder, child);
      let info: Deno.FileInfo;
      try {
        info = await Deno.lstat(absolute);
      } catch {
        continue;
      }
      if (info.isDirectory) {
        if (depth >= MAX_RESOURCE_DEPTH) truncated = true;
        else await walk(child, depth + 1);
      } else if (info.isFile) {
        resources.push(child);
      } else if (info.isSymlink && await isFileInside(absolute, folder)) {
        resources.push(child);
      }
    }
  };
  for (const top of RESOURCE_FOLDERS) {
    try {
      if (!(await Deno.lstat(nodePath.join(folder, top))).isDirectory) continue;
    } catch {
      continue;
    }
    await walk(top, 1);
  }
  resources.sort();
  return { resources, truncated };
}

async function isFileInside(path: string, folder: string): Promise<boolean> {
  try {
    const real = await Deno.realPath(path);
    return isWithin(real, folder) && (await Deno.stat(real)).isFile;
  } catch {
    return false;
  }
}

/** Entry names of a folder, sorted; `[]` when it cannot be read. */
async function listEntries(path: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(path)) names.push(entry.name);
  } catch {
    return [];
  }
  return names.sort();
}

function describeError(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "it does not exist";
  if (error instanceof Deno.errors.NotADirectory) return "it is not a folder";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.NotCapable) return "Deno permissions do not allow reading it";
  return error instanceof Error ? error.message : String(error);
}
