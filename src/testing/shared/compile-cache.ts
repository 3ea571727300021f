/**
 * A directory for Node's on-disk compile cache (`NODE_COMPILE_CACHE`, Node >= 22.1), shared by the
 * agent processes the testing kit starts: a large bundle (Kimi Code's 21 MB `main.mjs`) then starts
 * in ~4.7 s instead of ~8 s on two loaded cores after its first start. One per user under the
 * system temporary directory, 0700; not used unless it is a real directory of this user that
 * nobody else can write (a cache another user could plant would run as our code).
 *
 * @module
 */

import { lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The compile cache directory, made if missing; undefined when it cannot be made or is not safe to
 * use (a link, another owner, group- or world-accessible).
 *
 * @returns An absolute path for `NODE_COMPILE_CACHE`, or undefined (run without a cache).
 */
export function nodeCompileCacheDir(): string | undefined {
  const uid = process.getuid?.();
  const dir = join(tmpdir(), `code-agent-sdk-node-compile-cache-${uid ?? "user"}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
  }
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || (stat.mode & 0o077) !== 0) return undefined;
    if (uid !== undefined && stat.uid !== uid) return undefined;
  } catch {
    return undefined;
  }
  return dir;
}
