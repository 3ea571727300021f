/**
 * The Cursor Agent backend: discovery, option checks, and spawn-per-turn sessions over the
 * `cursor-agent` CLI.
 */
import { AbortError } from "../../errors.js";
import type { AgentOptions } from "../../options.js";
import { isStreamedPrompt } from "../../prompt.js";
import { DEFAULT_MAX_BUFFER_SIZE, SubprocessTransport } from "../../transport/subprocess.js";
import type { Backend, Capabilities, OpenSessionParams, Session } from "../backend.js";
import { buildCursorEnv, cursorPromptText } from "./command.js";
import { checkCursorVersion, findCursorCli } from "./discovery.js";
import { CursorSession } from "./session.js";
import { validateCursorOptions } from "./validate.js";

/**
 * What Cursor's print mode offers: no control protocol, so no permission callback, hooks, SDK MCP
 * routing or runtime changes; one process per turn. Interrupting works, by ending the turn's process.
 */
export const CURSOR_CAPABILITIES: Capabilities = Object.freeze({
  controlProtocol: false,
  toolApproval: false,
  hooks: false,
  sdkMcpRouting: false,
  persistentSession: false,
  interrupt: true,
  runtimeConfigChanges: false,
  modelSwitching: false,
  mcpStatus: false,
});

/** One version check (and at most one warning) per binary per process. */
const versionChecks = new Map<string, Promise<string | undefined>>();

function checkVersionOnce(cliPath: string, env: Record<string, string>): Promise<string | undefined> {
  let check = versionChecks.get(cliPath);
  if (!check) {
    check = checkCursorVersion(cliPath, env).then(({ version, warning }) => {
      if (warning) process.emitWarning(warning, { code: "CODE_AGENT_SDK_CLI_VERSION" });
      return version;
    });
    versionChecks.set(cliPath, check);
  }
  return check;
}

/** Drives Cursor Agent (`cursor-agent` / `agent`): one `--print` process per turn, `--resume` between turns. */
export class CursorBackend implements Backend {
  readonly name = "cursor" as const;
  readonly capabilities = CURSOR_CAPABILITIES;

  validateOptions(options: AgentOptions): void {
    validateCursorOptions(options);
  }

  /**
   * Finds the CLI and checks its version; with an initial prompt, starts the first turn. One-shot
   * and multi-turn sessions are the same thing here (`params.oneShot` changes nothing): a turn is
   * a process either way.
   */
  async openSession(params: OpenSessionParams): Promise<Session> {
    const { options, initialPrompt } = params;
    this.validateOptions(options);
    // Before anything runs: an image in the first prompt is refused without spawning.
    const firstTurn =
      initialPrompt !== undefined && !isStreamedPrompt(initialPrompt)
        ? cursorPromptText(initialPrompt)
        : undefined;
    throwIfAborted(options.signal);
    const env = buildCursorEnv(options);
    const cliPath = findCursorCli({ cliPath: options.cliPath, env });
    const version = await checkVersionOnce(cliPath, env);
    throwIfAborted(options.signal);
    const session = new CursorSession({
      options,
      cli: { path: cliPath, version },
      spawnTurn: (args) =>
        new SubprocessTransport({
          command: cliPath,
          args,
          cwd: options.cwd ?? process.cwd(),
          env,
          stdin: "ignore",
          ...(options.stderr ? { onStderrLine: options.stderr } : {}),
          maxBufferSize: options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
          ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
          cliName: "cursor-agent",
        }),
    });
    if (firstTurn !== undefined) {
      try {
        await session.send(firstTurn);
      } catch (error) {
        await session.close();
        throw error;
      }
    }
    return session;
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError("The operation was aborted", { cause: signal.reason });
}
