/**
 * The client side of ACP's `fs/*` requests, confined to the session's working directory.
 *
 * The boundary (see `confined-path.ts`): a path is taken apart below the working directory and
 * walked one component at a time without following links — a link is read and its target walked
 * only while it stays inside; a link leading out (dangling or not), a `..` leaving the directory
 * or a relative path is refused with an error the agent sees. Files are opened no-follow and
 * non-blocking and only regular files are served (a FIFO, a socket or a device is refused before
 * any blocking call). On Linux each step opens relative to the descriptor of the directory before
 * it, which closes the check-then-open race; elsewhere a directory swapped for a link between two
 * steps can still win it.
 *
 * Memory and descriptors: at most {@link MAX_OPEN_FILES} requests of a session hold a file open at
 * once; a whole-file read loads at most `maxFileBytes`; the reads of one session hold at most
 * `maxFileBytes` between them at once (a {@link ByteBudget}; the others wait their turn); a read
 * with `line` / `limit` streams the file and keeps only the lines asked for (at most
 * `maxFileBytes` of them), so it serves a slice of a file of any size.
 *
 * Writes create missing directories (0700) and new files (0600, exclusive, no-follow); an existing
 * regular file is truncated and rewritten in place, keeping its mode and owner.
 */
import { realpathSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { ByteBudget } from "./byte-budget.js";
import { type ConfinedDirectory, ConfinedPathError, ConfinedRoot } from "./confined-path.js";

/** Most fs requests of one session that hold a file open at once (the others wait their turn). */
export const MAX_OPEN_FILES = 32;

/** Size of the chunks a `line` / `limit` read streams the file in. */
export const LINE_READ_CHUNK_BYTES = 64 * 1024;

/** The `fs/read_text_file` parameters this client reads. */
export interface ReadTextFileParams {
  path: string;
  line?: number | null;
  limit?: number | null;
}

/** The `fs/write_text_file` parameters this client reads. */
export interface WriteTextFileParams {
  path: string;
  content: string;
}

/** Serves `fs/read_text_file` and `fs/write_text_file` within one directory. */
export class Workspace {
  /** The working directory with its links resolved. */
  readonly root: string;
  private readonly confined: ConfinedRoot;
  private readonly budget: ByteBudget;
  /** Counts open files: a flood of requests does not open a descriptor each while it waits. */
  private readonly openFiles = new ByteBudget(MAX_OPEN_FILES);

  /**
   * @param cwd The session's working directory.
   * @param maxFileBytes Largest file `readTextFile` loads, and the most bytes the session's
   *   concurrent reads hold at once.
   */
  constructor(
    cwd: string,
    private readonly maxFileBytes: number,
  ) {
    const given = resolve(cwd);
    this.root = realpathSync(given);
    this.confined = new ConfinedRoot(this.root, given === this.root ? [] : [given]);
    this.budget = new ByteBudget(maxFileBytes);
  }

  /** The most bytes the session's reads have held at once so far. */
  get peakReadBytes(): number {
    return this.budget.peakBytes;
  }

  /**
   * The real path of directory `path` inside the workspace (for a command's working directory).
   *
   * @throws RequestError (invalid params) for a relative path, one outside the workspace, or one
   *   leading out through a link; resource-not-found for a missing directory.
   */
  async directory(path: string): Promise<string> {
    const dir = await this.openDirectory(path);
    await dir.handle.close().catch(() => undefined);
    return dir.path;
  }

  /**
   * Directory `path` inside the workspace, held open (see `ConfinedRoot.openDirectory`): a
   * command started with its `cwd` runs in that very directory. The caller closes `handle`.
   *
   * @throws RequestError as {@link directory}.
   */
  async openDirectory(path: string): Promise<ConfinedDirectory> {
    checkPath(path);
    try {
      return await this.confined.openDirectory(path);
    } catch (error) {
      throw requestError(error, path);
    }
  }

  /** `fs/read_text_file`: the file's text, or `limit` lines from line `line` (1-based). */
  async readTextFile(params: ReadTextFileParams): Promise<string> {
    checkPath(params.path);
    const line = lineNumber(params.line, "line");
    const limit = lineNumber(params.limit, "limit");
    let file: FileHandle | undefined;
    const slot = await this.openFiles.acquire(1);
    try {
      const opened = await this.confined.openForRead(params.path);
      file = opened.handle;
      const size = opened.stat.size;
      const ranged = line !== undefined || limit !== undefined;
      if (!ranged && size > this.maxFileBytes) {
        throw RequestError.invalidParams(
          { path: params.path, size },
          `the file is ${size} bytes; the client reads at most ${this.maxFileBytes} (ask for a line range)`,
        );
      }
      const release = await this.budget.acquire(
        Math.min(size, this.maxFileBytes) + (ranged ? LINE_READ_CHUNK_BYTES : 0),
      );
      try {
        if (!ranged) return (await readExactly(file, size)).toString("utf8");
        return await this.readLines(file, params.path, Math.max(0, (line ?? 1) - 1), limit);
      } finally {
        release();
      }
    } catch (error) {
      throw requestError(error, params.path);
    } finally {
      await file?.close().catch(() => undefined);
      slot();
    }
  }

  /**
   * `fs/write_text_file`: writes (creates, with missing parent directories inside the workspace).
   *
   * @param authorize Asked once the path is known to be below the workspace, before anything is
   *   created or written (the session's `canUseTool`); throws to refuse.
   */
  async writeTextFile(
    params: WriteTextFileParams,
    authorize?: (request: WriteTextFileParams) => Promise<void>,
  ): Promise<void> {
    checkPath(params.path);
    if (typeof params.content !== "string") {
      throw RequestError.invalidParams({ path: params.path }, "content must be a string");
    }
    if (this.confined.componentsOf(params.path) === undefined) {
      throw requestError(this.confined.outside(params.path), params.path);
    }
    await authorize?.({ path: params.path, content: params.content });
    let file: FileHandle | undefined;
    const slot = await this.openFiles.acquire(1);
    try {
      const opened = await this.confined.openForWrite(params.path);
      file = opened.handle;
      if (!opened.created) await file.truncate(0);
      await file.writeFile(params.content, "utf8");
    } catch (error) {
      throw requestError(error, params.path);
    } finally {
      await file?.close().catch(() => undefined);
      slot();
    }
  }

  /**
   * Lines `[start, start + limit)` of the file (0-based; all from `start` without a limit), joined
   * with `\n` as `text.split("\n").slice(…).join("\n")` would, read in chunks: only the selected
   * bytes are kept, at most `maxFileBytes` of them.
   */
  private async readLines(
    file: FileHandle,
    path: string,
    start: number,
    limit: number | undefined,
  ): Promise<string> {
    const end = limit === undefined ? Number.POSITIVE_INFINITY : start + Math.max(0, limit);
    if (end <= start) return "";
    const chunk = Buffer.allocUnsafe(LINE_READ_CHUNK_BYTES);
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let lineIndex = 0;
    let position = 0;
    const keep = (bytes: Buffer) => {
      keptBytes += bytes.length;
      if (keptBytes > this.maxFileBytes) {
        throw RequestError.invalidParams(
          { path, line: start + 1, limit: limit ?? null },
          `the lines asked for are over ${this.maxFileBytes} bytes, the most the client reads (ask for fewer)`,
        );
      }
      kept.push(Buffer.from(bytes));
    };
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      let from = 0;
      while (from <= data.length) {
        const newline = data.indexOf(0x0a, from);
        const until = newline === -1 ? data.length : newline;
        if (lineIndex >= start) {
          // The newline between two selected lines is kept; the one after the last is not.
          const last = newline !== -1 && lineIndex + 1 >= end;
          keep(data.subarray(from, newline === -1 || last ? until : until + 1));
        }
        if (newline === -1) break;
        lineIndex += 1;
        if (lineIndex >= end) return Buffer.concat(kept).toString("utf8");
        from = newline + 1;
      }
    }
    return Buffer.concat(kept).toString("utf8");
  }
}

/** Reads up to `size` bytes from the start (fewer if the file shrank meanwhile). */
async function readExactly(file: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await file.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function checkPath(path: unknown): asserts path is string {
  if (typeof path !== "string" || !isAbsolute(path) || path.includes("\0")) {
    throw RequestError.invalidParams({ path }, "ACP paths must be absolute");
  }
}

function lineNumber(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw RequestError.invalidParams({ [name]: value }, `${name} must be a non-negative integer`);
  }
  return value;
}

/** What the agent is told for a failure of `path`. */
function requestError(error: unknown, path: string): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof ConfinedPathError) {
    if (error.problem.kind === "not-found") return RequestError.resourceNotFound(path);
    return RequestError.invalidParams({ path, reason: error.problem.kind }, error.message);
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return RequestError.resourceNotFound(path);
  const message = error instanceof Error ? error.message : "unknown failure";
  return RequestError.internalError({ path, ...(typeof code === "string" ? { code } : {}) }, message);
}
