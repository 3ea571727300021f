/**
 * Private files handed to a CLI by path instead of on its command line, where any local user could
 * read them in `/proc/<pid>/cmdline` (MCP server environments and headers, settings).
 *
 * The directory is made by `mkdtemp` (mode 0700) under the system temporary directory on the first
 * write; each file is created exclusive and no-follow with mode 0600. Both are removed by
 * `remove()` (when the session ends) and, failing that, when the host process exits.
 *
 * For a CLI that runs as another user, each file is given to that user (through its descriptor)
 * and the directory, still this process's, is made 0711: the user can open the files by name but
 * never controls the directory, so nothing it does can redirect what this process later removes.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchownSync,
  mkdtempSync,
  openSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { rm, rmdir, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliConnectionError } from "../errors.js";
import { atHostExit } from "./group-registry.js";

/** The uid and gid the files are for, when the CLI runs as another user than this process. */
export interface PrivateFilesOwner {
  uid: number;
  gid: number;
}

/** A private directory of files for one CLI process; nothing exists on disk until `write()`. */
export class PrivateFiles {
  private dir: string | undefined;
  private readonly names: string[] = [];
  private forgetAtExit: (() => void) | undefined;
  private readonly owner: PrivateFilesOwner | undefined;

  /**
   * @param prefix The directory name's prefix (a random suffix follows).
   * @param owner The user the CLI runs as, when not this process's: the files are given to it, and
   *   the directory (kept by this process) can be traversed by it (0711).
   */
  constructor(
    private readonly prefix: string,
    owner?: PrivateFilesOwner,
  ) {
    this.owner = owner;
  }

  /** The directory, once a file has been written. */
  get directory(): string | undefined {
    return this.dir;
  }

  /**
   * Writes `content` to a new file `name` (a plain file name) and returns its absolute path.
   * Synchronous: a few system calls, done once per CLI process before it is spawned.
   *
   * @throws CliConnectionError when the directory or the file cannot be made (the file already
   *   exists, the temporary directory is not writable, …), with the system error as `cause`; what
   *   was made is left for `remove()`.
   */
  write(name: string, content: string): string {
    if (name.includes("/") || name === "." || name === "..") throw new TypeError(`not a file name: ${name}`);
    try {
      return this.writeFile(name, content);
    } catch (error) {
      throw new CliConnectionError(
        `cannot write the CLI's private file ${name} (under ${this.dir ?? tmpdir()}): ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  private writeFile(name: string, content: string): string {
    const dir = this.ensureDir();
    const path = join(dir, name);
    const fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    this.names.push(name);
    try {
      if (this.owner !== undefined) fchownSync(fd, this.owner.uid, this.owner.gid);
      const bytes = Buffer.from(content, "utf8");
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    } finally {
      closeSync(fd);
    }
    return path;
  }

  /** Removes the directory and its files; idempotent, never throws. */
  remove(): void {
    const dir = this.dir;
    this.dir = undefined;
    this.forgetAtExit?.();
    this.forgetAtExit = undefined;
    if (dir !== undefined) removeQuietly(dir, this.names.splice(0));
  }

  /**
   * {@link remove}, off the event loop (removing a directory can take milliseconds); for the end
   * of a session. Never rejects.
   */
  async removeAsync(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    this.forgetAtExit?.();
    this.forgetAtExit = undefined;
    if (dir === undefined) return;
    const names = this.names.splice(0);
    try {
      await Promise.all(names.map((name) => unlink(join(dir, name))));
      await rmdir(dir);
    } catch {
      // Something else in it: the whole tree. Best effort, as in `remove()`.
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private ensureDir(): string {
    if (this.dir !== undefined) return this.dir;
    const dir = mkdtempSync(join(tmpdir(), this.prefix));
    this.dir = dir;
    if (this.owner !== undefined) chmodSync(dir, 0o711);
    this.forgetAtExit = atHostExit(() => removeQuietly(dir, this.names));
    return dir;
  }
}

/**
 * Removes the files written, then the directory (microseconds; a recursive `rmSync` takes
 * milliseconds), or, when that fails (something else is in it), the whole tree.
 */
function removeQuietly(dir: string, names: readonly string[]): void {
  try {
    for (const name of names) unlinkSync(join(dir, name));
    rmdirSync(dir);
  } catch {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort: a clean-up has nobody to report to, and must not hide the session's own outcome.
    }
  }
}
