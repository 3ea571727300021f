/**
 * The file a recording goes to: opened without following a link or blocking on a FIFO, written
 * asynchronously (never a synchronous write on the event loop) through a bounded queue.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open } from "node:fs/promises";
import { AgentSdkError } from "../errors.js";
import { describeEntry } from "../process/regular-files.js";
import { describeError } from "../wire/safe-json.js";

/**
 * A recording could not be written: its file could not be created (then the session fails
 * before anything is started), or recording stopped or skipped a line later (then the session
 * goes on: see `RecordOptions.onError`).
 */
export class RecordingError extends AgentSdkError {
  /** The recording's path. */
  readonly path: string;
  /** `CODE_AGENT_SDK_RECORDING`, also the code of the process warning that reports it by default. */
  readonly code = "CODE_AGENT_SDK_RECORDING";
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

/** How many bytes may wait for the disk before recording stops (a file slower than the session). */
export const MAX_QUEUED_BYTES = 32 * 1024 * 1024;

/**
 * Opens `path` for a new recording, mode 0600, without following a symbolic link at it and without
 * blocking on a FIFO or device (`O_NONBLOCK`): created exclusive, so anything already there is
 * refused; with `overwrite`, an existing regular file this user owns with no other hard link is
 * truncated instead (never a link, FIFO, device or directory).
 *
 * @throws RecordingError saying why the path was refused.
 */
export async function openRecordingFile(path: string, overwrite: boolean): Promise<FileHandle> {
  const flags = constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  if (overwrite) {
    const existing = await lstatOrUndefined(path);
    if (existing !== undefined) return reopen(path, existing, flags);
  }
  try {
    return await open(path, flags | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      const stats = await lstatOrUndefined(path).catch(() => undefined);
      const what = stats === undefined ? "something" : describeEntry(stats);
      throw refused(
        path,
        `${what} already exists there (a recording never writes over anything; \`{ path, overwrite: true }\` replaces a regular file of yours)`,
        error,
      );
    }
    throw refused(path, describeError(error), error);
  }
}

async function reopen(path: string, existing: Stats, flags: number): Promise<FileHandle> {
  if (!existing.isFile()) throw refused(path, `${describeEntry(existing)} is there, not a regular file`);
  let handle: FileHandle;
  try {
    handle = await open(path, flags);
  } catch (error) {
    throw refused(path, describeError(error), error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.dev !== existing.dev || stats.ino !== existing.ino)
      throw refused(path, "the file was replaced while it was being opened");
    if (stats.nlink !== 1) throw refused(path, `the file has ${stats.nlink} hard links`);
    const uid = process.geteuid?.();
    if (uid !== undefined && stats.uid !== uid)
      throw refused(path, `the file belongs to uid ${stats.uid}, not to this process (uid ${uid})`);
    await handle.truncate(0);
    await handle.chmod(0o600);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error instanceof RecordingError ? error : refused(path, describeError(error), error);
  }
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw refused(path, describeError(error), error);
  }
}

function refused(path: string, why: string, cause?: unknown): RecordingError {
  return new RecordingError(path, `Cannot write the recording to ${path}: ${why}`, { cause });
}

/**
 * Appends text to an open file in order, one write at a time, never waiting on the caller's side.
 * At most {@link MAX_QUEUED_BYTES} wait (one larger line is taken when nothing waits); past that,
 * or when a write fails, `onStop` is called once and everything after is dropped (after an
 * overflow, `appendLast` can still add a line saying so).
 */
export class QueuedFileWriter {
  private queue: string[] = [];
  private queuedBytes = 0;
  private draining: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly handle: FileHandle,
    private readonly onStop: (why: string, overflow: boolean, cause?: unknown) => void,
    private readonly maxQueuedBytes = MAX_QUEUED_BYTES,
  ) {}

  /** Whether the writer stopped (a failed write, or too much waiting). */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Queues `text`; returns `false` (and stops) when what waits or is being written would pass the bound. */
  append(text: string): boolean {
    if (this.stopped) return false;
    const bytes = text.length * 3; // an upper bound of its UTF-8 size, without measuring it
    if (this.queuedBytes > 0 && this.queuedBytes + bytes > this.maxQueuedBytes) {
      this.stop(`more than ${this.maxQueuedBytes} bytes were waiting for the file`, true);
      return false;
    }
    this.queue.push(text);
    this.queuedBytes += bytes;
    this.draining ??= this.drain();
    return true;
  }

  /** Appends `text` after what is queued even when stopped for a full queue (a last line saying why). */
  appendLast(text: string): void {
    this.queue.push(text);
    this.draining ??= this.drain();
  }

  /** Resolves when everything queued so far is written (or dropped); never rejects. */
  async flushed(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const texts = this.queue;
        this.queue = [];
        const counted = texts.reduce((sum, text) => sum + text.length * 3, 0);
        const bytes = Buffer.from(texts.join(""), "utf8");
        let offset = 0;
        while (offset < bytes.length) {
          const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset);
          offset += bytesWritten;
        }
        // Counted until written: bytes in flight are held as much as queued ones.
        this.queuedBytes = Math.max(0, this.queuedBytes - counted);
      }
    } catch (error) {
      this.queue = [];
      this.stop(`writing failed: ${describeError(error)}`, false, error);
    } finally {
      this.draining = undefined;
    }
  }

  private stop(why: string, overflow: boolean, cause?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    this.queuedBytes = 0;
    this.onStop(why, overflow, cause);
  }
}
