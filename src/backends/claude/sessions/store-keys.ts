/**
 * Where a transcript file sits, as a {@link SessionKey}: the official SDK's mapping between
 * `<configDir>/projects/…` paths and store keys.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { encodeProjectDir } from "./store.js";
import type { SessionKey } from "./store-types.js";

/**
 * The key of a transcript file below `projectsDir`, or `undefined` for a path elsewhere or of
 * another shape:
 * - `<projectsDir>/<projectKey>/<sessionId>.jsonl` → the main transcript;
 * - `<projectsDir>/<projectKey>/<sessionId>/<a>/…/<name>.jsonl` → `subpath: "<a>/…/<name>"`
 *   (e.g. `subagents/agent-<id>`).
 */
export function sessionKeyOf(filePath: string, projectsDir: string): SessionKey | undefined {
  const rel = relative(projectsDir, filePath);
  if (rel === "" || isAbsolute(rel)) return undefined;
  const parts = rel.split(sep);
  if (parts[0] === ".." || parts.length < 2) return undefined;
  const [projectKey, second] = parts as [string, string];
  if (parts.length === 2) {
    return second.endsWith(".jsonl")
      ? { projectKey, sessionId: second.slice(0, -".jsonl".length) }
      : undefined;
  }
  if (parts.length < 4) return undefined;
  const rest = parts.slice(2);
  rest[rest.length - 1] = (rest.at(-1) as string).replace(/\.jsonl$/, "");
  return { projectKey, sessionId: second, subpath: rest.join("/") };
}

/**
 * The project key of a working directory: the CLI's folder name for it (symlinks resolved, as the
 * CLI resolves them), which is also the `projectKey` of every key its transcripts are mirrored to.
 */
export function projectKeyOf(dir: string): string {
  const absolute = resolve(dir);
  let real = absolute;
  try {
    real = realpathSync(absolute);
  } catch {
    // A directory that does not exist (yet) is keyed by its path as given.
  }
  return encodeProjectDir(real);
}

/** `key` as one string, for maps and messages: `projectKey/sessionId[/subpath]`. */
export function keyText(key: SessionKey): string {
  return key.subpath === undefined
    ? `${key.projectKey}/${key.sessionId}`
    : `${key.projectKey}/${key.sessionId}/${key.subpath}`;
}
