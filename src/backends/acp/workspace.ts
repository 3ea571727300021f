/**
 * The client side of ACP's `fs/*` requests, confined to the session's working directory.
 *
 * The boundary: a path is served only if, after resolving `..` and every symbolic link of the part
 * that exists, it lies inside the working directory (itself resolved the same way). A path that
 * leaves it, a relative path, or a link pointing out is refused with an error the agent sees. The
 * check happens before each operation; a process that swaps a directory for a link between the
 * check and the operation can still win that race, so this is a guard against a confused agent,
 * not a sandbox against a hostile one (which can run commands of its own anyway).
 */
import { realpathSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";

/** Serves `fs/read_text_file` and `fs/write_text_file` within one directory. */
export class Workspace {
  /** The working directory with its links resolved. */
  readonly root: string;

  /**
   * @param cwd The session's working directory.
   * @param maxFileBytes Largest file `readTextFile` loads (bounds the memory one request takes).
   */
  constructor(
    cwd: string,
    private readonly maxFileBytes: number,
  ) {
    this.root = realpathSync(resolve(cwd));
  }

  /**
   * The resolved path of `path` if it lies inside the workspace.
   *
   * @throws RequestError (invalid params) for a relative path or one outside the workspace.
   */
  inside(path: string): string {
    if (typeof path !== "string" || !isAbsolute(path)) {
      throw RequestError.invalidParams({ path }, "ACP paths must be absolute");
    }
    const real = resolveExisting(resolve(path));
    const rel = relative(this.root, real);
    if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) return real;
    throw RequestError.invalidParams(
      { path },
      `${path} is outside the session's working directory (${this.root}); the client serves files only inside it`,
    );
  }

  /** `fs/read_text_file`: the file's text, or `limit` lines from line `line` (1-based). */
  async readTextFile(params: { path: string; line?: number | null; limit?: number | null }): Promise<string> {
    const path = this.inside(params.path);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        throw RequestError.resourceNotFound(params.path);
      throw error;
    }
    if (size > this.maxFileBytes) {
      throw RequestError.invalidParams(
        { path: params.path, size },
        `the file is ${size} bytes; the client reads at most ${this.maxFileBytes}`,
      );
    }
    const text = await readFile(path, "utf8");
    if (params.line == null && params.limit == null) return text;
    const lines = text.split("\n");
    const start = Math.max(0, (params.line ?? 1) - 1);
    const end = params.limit == null ? lines.length : start + Math.max(0, params.limit);
    return lines.slice(start, end).join("\n");
  }

  /** `fs/write_text_file`: writes (creates, with missing parent directories inside the workspace). */
  async writeTextFile(params: { path: string; content: string }): Promise<void> {
    const path = this.inside(params.path);
    await mkdir(dirname(path), { recursive: true });
    // The parent may have been created just now: check again that it is still inside.
    this.inside(join(dirname(path), basename(path)));
    await writeFile(path, params.content, "utf8");
  }
}

/**
 * `path` with the links of its longest existing prefix resolved and the rest appended, so a file
 * that does not exist yet is judged by the directory it would be created in.
 */
function resolveExisting(path: string): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}
