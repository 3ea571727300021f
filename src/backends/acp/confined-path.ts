/**
 * Opening a file inside a root directory without ever following a symbolic link the kernel
 * resolves on our behalf.
 *
 * The path is taken apart into components below the root. The root is opened as a directory
 * (`O_DIRECTORY | O_NOFOLLOW`), then each directory component is opened the same way *relative to
 * the directory opened before it*. Node has no `openat()`, but on Linux
 * `/proc/self/fd/<fd>/<name>` is resolved by the kernel in the directory that descriptor holds
 * (whatever has been renamed or swapped since), so a component replaced by a link between two
 * steps is refused, not followed. The last component is opened `O_NOFOLLOW | O_NONBLOCK` (a FIFO
 * or a device never blocks libuv's thread pool) and the opened descriptor is `fstat`ed: only a
 * regular file is served.
 *
 * A link met on the way is read (`readlink` of that same descriptor-relative name) and its target,
 * resolved lexically from the directory that holds it, is walked the same way if it stays inside
 * the root (at most {@link MAX_LINKS} links per path); a link leading out — dangling or not — is
 * refused. So a link a cloned repository carries can never take a read or a write outside.
 *
 * Elsewhere (no `/proc/self/fd`) the same walk runs on whole paths: every component is still
 * checked without following links and the last one opened no-follow and non-blocking, but a
 * directory swapped for a link between its check and the next step's open is not detected.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink } from "node:fs/promises";
import { isAbsolute, posix, relative, resolve, sep } from "node:path";

/** The most symbolic links followed (inside the root) while resolving one path. */
export const MAX_LINKS = 40;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
const DIR_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const WRITE_FLAGS = constants.O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const CREATE_FLAGS = WRITE_FLAGS | constants.O_CREAT | constants.O_EXCL;

/** Mode of a file created by a write (before the umask). */
export const NEW_FILE_MODE = 0o600;
/** Mode of a directory created for a write (before the umask). */
export const NEW_DIR_MODE = 0o700;

/** Why a path was refused. */
export type ConfinedPathProblem =
  | { kind: "outside"; link?: string }
  | { kind: "not-found" }
  | { kind: "not-a-file"; what: string }
  | { kind: "not-a-directory"; component: string }
  | { kind: "too-many-links" };

/** A path the walk refused; `problem` says why. */
export class ConfinedPathError extends Error {
  constructor(
    readonly path: string,
    readonly problem: ConfinedPathProblem,
    message: string,
  ) {
    super(message);
    this.name = "ConfinedPathError";
  }
}

/** An open regular file inside the root. */
export interface ConfinedFile {
  readonly handle: FileHandle;
  readonly stat: Stats;
  /** True when the walk created the file. */
  readonly created: boolean;
}

/** A directory inside the root, held open. */
export interface ConfinedDirectory {
  readonly handle: FileHandle;
  /** Its real path. */
  readonly path: string;
  /** What to give `spawn` as `cwd`: the opened directory itself where the platform can name it. */
  readonly cwd: string;
}

/** Whether descriptor-relative opens (`/proc/self/fd/<fd>/<name>`) work here. */
let procFd: Promise<boolean> | undefined;
async function hasProcFd(): Promise<boolean> {
  procFd ??= (async () => {
    if (process.platform !== "linux") return false;
    try {
      const handle = await open("/", DIR_FLAGS);
      try {
        await lstat(`/proc/self/fd/${handle.fd}/.`);
        return true;
      } finally {
        await handle.close();
      }
    } catch {
      return false;
    }
  })();
  return procFd;
}

/** A directory reached by the walk: its descriptor, and how to name an entry of it. */
interface Dir {
  readonly handle: FileHandle;
  /** Components from the root (real directories: never links). */
  readonly components: readonly string[];
  readonly base: string;
}

function entry(dir: Dir, name: string): string {
  return `${dir.base}/${name}`;
}

/** Files inside one directory tree, opened without following links. */
export class ConfinedRoot {
  /**
   * @param root The root directory, absolute, its own links already resolved (it is trusted).
   * @param aliases Other absolute spellings of the root (the directory as given, before resolving).
   */
  constructor(
    readonly root: string,
    private readonly aliases: readonly string[] = [],
  ) {}

  /**
   * The components of absolute `path` below the root, judged lexically (`..` resolved, no link
   * followed), or `undefined` when the path is not below the root.
   */
  componentsOf(path: string): string[] | undefined {
    const normal = resolve(path);
    for (const base of [this.root, ...this.aliases]) {
      const rel = relative(base, normal);
      if (rel === "") return [];
      if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) continue;
      return rel.split(sep).filter((c) => c !== "" && c !== ".");
    }
    return undefined;
  }

  /** Opens `path` for reading: a regular file inside the root, or a {@link ConfinedPathError}. */
  openForRead(path: string): Promise<ConfinedFile> {
    return this.walk(path, "read");
  }

  /**
   * Opens `path` for writing, creating it (exclusive, no-follow, {@link NEW_FILE_MODE}) and its
   * missing directories ({@link NEW_DIR_MODE}) when absent. An existing file keeps its mode and is
   * not truncated here (the caller truncates once it has the descriptor).
   */
  openForWrite(path: string): Promise<ConfinedFile> {
    return this.walk(path, "write");
  }

  /**
   * Opens directory `path` inside the root (links inside the root resolved, each component checked
   * no-follow), for a command's working directory: `cwd` names the opened directory itself on
   * Linux (`/proc/self/fd/<fd>`, which a child resolves between its fork and its exec, while the
   * descriptor is still open), else its real path. The caller closes `handle`.
   */
  async openDirectory(path: string): Promise<ConfinedDirectory> {
    const dir = await this.walk(path, "directory");
    const real = dir.components.length === 0 ? this.root : `${this.root}${sep}${dir.components.join(sep)}`;
    return { handle: dir.handle, path: real, cwd: dir.base.startsWith("/proc/self/fd/") ? dir.base : real };
  }

  private walk(path: string, kind: "read" | "write"): Promise<ConfinedFile>;
  private walk(path: string, kind: "directory"): Promise<Dir>;
  private async walk(path: string, kind: "read" | "write" | "directory"): Promise<ConfinedFile | Dir> {
    const start = this.componentsOf(path);
    if (start === undefined) throw this.outside(path);
    const write = kind === "write";
    const viaProc = await hasProcFd();
    let pending = start;
    let links = 0;
    /** Restarts the walk at the target of the link `name` of `dir` (or refuses it). */
    const followLink = async (dir: Dir, name: string, rest: readonly string[]): Promise<void> => {
      if (++links > MAX_LINKS) {
        throw new ConfinedPathError(
          path,
          { kind: "too-many-links" },
          `${path}: more than ${MAX_LINKS} symbolic links`,
        );
      }
      const target = await readlink(entry(dir, name));
      const where = this.linkTarget(dir.components, target);
      if (where === undefined) throw this.outside(path, [...dir.components, name].join("/"));
      pending = [...where, ...rest];
    };
    for (;;) {
      if (pending.length === 0 && kind !== "directory") {
        throw new ConfinedPathError(
          path,
          { kind: "not-a-file", what: "directory" },
          `${path} is a directory, not a regular file`,
        );
      }
      let dir = await this.openRoot(viaProc);
      let kept: Dir | undefined;
      try {
        let restarted = false;
        // Every component but a file's last: a directory, opened no-follow relative to the one before.
        while (pending.length > (kind === "directory" ? 0 : 1)) {
          const [name, ...rest] = pending as [string, ...string[]];
          const next = await this.openDir(dir, name, write, viaProc, path);
          if (next === "link") {
            await followLink(dir, name, rest);
            restarted = true;
            break;
          }
          await dir.handle.close();
          dir = next;
          pending = rest;
        }
        if (restarted) continue;
        if (kind === "directory") {
          kept = dir;
          return dir;
        }
        const name = pending[0] as string;
        const opened = await this.openFile(dir, name, write, path);
        if (opened === "link") {
          await followLink(dir, name, []);
          continue;
        }
        return opened;
      } finally {
        if (dir !== kept) await dir.handle.close().catch(() => undefined);
      }
    }
  }

  private async openRoot(viaProc: boolean): Promise<Dir> {
    const handle = await open(this.root, DIR_FLAGS);
    return { handle, components: [], base: viaProc ? `/proc/self/fd/${handle.fd}` : this.root };
  }

  /** Opens directory `name` of `dir`; `"link"` when it is a symbolic link. */
  private async openDir(
    dir: Dir,
    name: string,
    create: boolean,
    viaProc: boolean,
    path: string,
  ): Promise<Dir | "link"> {
    const components = [...dir.components, name];
    const at = entry(dir, name);
    let handle: FileHandle;
    try {
      handle = await open(at, DIR_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && create) {
        await mkdir(at, { mode: NEW_DIR_MODE }).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== "EEXIST") throw e;
        });
        return this.openDir(dir, name, false, viaProc, path);
      }
      if (code === "ENOTDIR" || code === "ELOOP") {
        if ((await lstat(at)).isSymbolicLink()) return "link";
        throw new ConfinedPathError(
          path,
          { kind: "not-a-directory", component: components.join("/") },
          `${path}: ${components.join("/")} is not a directory`,
        );
      }
      if (code === "ENOENT")
        throw new ConfinedPathError(path, { kind: "not-found" }, `${path} does not exist`);
      throw error;
    }
    return { handle, components, base: viaProc ? `/proc/self/fd/${handle.fd}` : resolve(dir.base, name) };
  }

  /** Opens the last component; `"link"` when it is a symbolic link. */
  private async openFile(
    dir: Dir,
    name: string,
    write: boolean,
    path: string,
    attempt = 0,
  ): Promise<ConfinedFile | "link"> {
    const at = entry(dir, name);
    // Looked at before opening, so a device's open (which can act: rewind a tape) is never called.
    let before: Stats | undefined;
    try {
      before = await lstat(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    if (before?.isSymbolicLink()) return "link";
    if (before && !before.isFile()) throw this.notAFile(path, before);
    if (!before && !write) throw new ConfinedPathError(path, { kind: "not-found" }, `${path} does not exist`);
    let handle: FileHandle;
    let created = false;
    try {
      if (before) handle = await open(at, write ? WRITE_FLAGS : READ_FLAGS);
      else {
        handle = await open(at, CREATE_FLAGS, NEW_FILE_MODE);
        created = true;
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Swapped for a link (ELOOP), created or removed meanwhile, or a FIFO with no reader (ENXIO):
      // look again.
      const changing = code === "ELOOP" || code === "EEXIST" || code === "ENOENT" || code === "ENXIO";
      if (changing && attempt < 3) {
        const now = await lstat(at).catch(() => undefined);
        if (now?.isSymbolicLink()) return "link";
        if (now && !now.isFile()) throw this.notAFile(path, now);
        if (code === "ENOENT" && !write) {
          throw new ConfinedPathError(path, { kind: "not-found" }, `${path} does not exist`);
        }
        return this.openFile(dir, name, write, path, attempt + 1);
      }
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw this.notAFile(path, stat);
      return { handle, stat, created };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** The components below the root of a link's target, or `undefined` when it leads out. */
  private linkTarget(dirComponents: readonly string[], target: string): string[] | undefined {
    if (isAbsolute(target)) return this.componentsOf(target);
    const joined = posix.normalize(posix.join(...dirComponents, target.split(sep).join("/")));
    if (joined === ".." || joined.startsWith("../")) return undefined;
    return joined.split("/").filter((c) => c !== "" && c !== ".");
  }

  /** The refusal of `path` as outside the root (through `link`, when a link leads out). */
  outside(path: string, link?: string): ConfinedPathError {
    return new ConfinedPathError(
      path,
      link === undefined ? { kind: "outside" } : { kind: "outside", link },
      link === undefined
        ? `${path} is outside the session's working directory (${this.root})`
        : `${path} is outside the session's working directory (${this.root}): the symbolic link ${link} leads out`,
    );
  }

  private notAFile(path: string, stat: Stats): ConfinedPathError {
    const what = stat.isDirectory()
      ? "directory"
      : stat.isFIFO()
        ? "FIFO"
        : stat.isSocket()
          ? "socket"
          : stat.isCharacterDevice() || stat.isBlockDevice()
            ? "device"
            : "special file";
    return new ConfinedPathError(
      path,
      { kind: "not-a-file", what },
      `${path} is a ${what}, not a regular file`,
    );
  }
}
