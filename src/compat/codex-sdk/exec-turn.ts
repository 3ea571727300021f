/**
 * One turn of `codex exec --experimental-json` on this SDK's process layer: the CLI in its own
 * process group (ended whole on abort, on `break`, or when the turn is done), bounded line
 * buffers, typed errors, the prompt written byte for byte and stdin closed.
 */
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { findCodexCli } from "../../backends/codex/discovery.js";
import { JsonDecodeError, ProcessError } from "../../errors.js";
import { abortErrorFor } from "../../signals/abort.js";
import { SubprocessTransport } from "../../transport/subprocess.js";
import type { ThreadEvent } from "./events.js";

/** What the official SDK puts in the CLI's environment to say who is calling. */
const ORIGINATOR_ENV = "CODEX_INTERNAL_ORIGINATOR_OVERRIDE";
const ORIGINATOR = "codex_sdk_ts";

/** One exec turn's process. */
export interface ExecTurn {
  codexPath?: string | undefined;
  /** The whole environment (replaces `process.env`) when given. */
  env?: Record<string, string> | undefined;
  apiKey?: string | undefined;
  args: string[];
  input: string;
  signal?: AbortSignal | undefined;
}

/** The environment of the CLI, as the official SDK builds it. */
export function execEnv(turn: Pick<ExecTurn, "env" | "apiKey">, pathDirs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  if (turn.env) Object.assign(env, turn.env);
  else for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  env[ORIGINATOR_ENV] ||= ORIGINATOR;
  if (turn.apiKey) env.CODEX_API_KEY = turn.apiKey;
  if (pathDirs.length > 0) {
    const rest = (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !pathDirs.includes(dir));
    env.PATH = [...pathDirs, ...rest].join(delimiter);
  }
  return env;
}

/**
 * Runs the turn and yields its events as the CLI wrote them. Ends the process group when the
 * caller stops early or `signal` aborts (then throws `AbortError`); a non-zero exit throws
 * `ProcessError` with the exit code and stderr.
 */
export async function* runExecTurn(turn: ExecTurn): AsyncGenerator<ThreadEvent, void, undefined> {
  if (turn.signal?.aborted) throw abortErrorFor(turn.signal.reason);
  const cli = findCodexCli(
    turn.codexPath !== undefined ? { cliPath: turn.codexPath } : { env: turn.env ?? process.env },
  );
  const transport = new SubprocessTransport({
    command: cli.command,
    args: [...cli.args, ...turn.args],
    env: execEnv(turn, bundledPathDirs(cli.command)),
    cwd: process.cwd(),
    cliName: "codex",
  });
  const onAbort = () => void transport.close();
  turn.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await transport.connect();
    await transport.writeText(turn.input);
    await transport.endInput();
    for await (const item of transport.readMessages()) {
      // The official SDK throws on a line it cannot parse; so do we, with the typed error.
      if (item instanceof JsonDecodeError) throw item;
      yield item as unknown as ThreadEvent;
    }
    if (turn.signal?.aborted) throw abortErrorFor(turn.signal.reason);
  } catch (error) {
    if (turn.signal?.aborted) throw abortErrorFor(turn.signal.reason);
    if (error instanceof ProcessError) {
      const detail = error.signal ? `signal ${error.signal}` : `code ${error.exitCode ?? 1}`;
      const official = new ProcessError("", {
        exitCode: error.exitCode,
        signal: error.signal,
        stderrTail: error.stderrTail,
        cause: error,
      });
      // The official SDK's message: the CLI's stderr once (the constructor would append the tail
      // a second time), ending with its last newline (the tail is kept as lines).
      const stderr = error.stderrTail === "" ? "" : `${error.stderrTail}\n`;
      official.message = `Codex Exec exited with ${detail}: ${stderr}`;
      throw official;
    }
    throw error;
  } finally {
    turn.signal?.removeEventListener("abort", onAbort);
    await transport.close();
  }
}

/** The platform package's `codex-path` directory (its bundled `rg`), which the CLI expects on PATH. */
function bundledPathDirs(command: string): string[] {
  const dir = join(dirname(dirname(command)), "codex-path");
  return existsSync(dir) ? [dir] : [];
}
