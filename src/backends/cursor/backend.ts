/**
 * The Cursor Agent backend: discovery, option checks, and spawn-per-turn sessions over the
 * `cursor-agent` CLI.
 */
import { throwIfAborted } from "../../internal/abort.js";
import { checkVersionOncePerBinary } from "../../internal/cli-discovery.js";
import { cliTransport, openOrClose, singleInitialPrompt } from "../../internal/open-session.js";
import type { AgentOptions } from "../../options.js";
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

const checkVersionOnce = checkVersionOncePerBinary(checkCursorVersion);

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
    const { options } = params;
    this.validateOptions(options);
    const initialPrompt = singleInitialPrompt(params);
    // Before anything runs: an image in the first prompt is refused without spawning.
    const firstTurn = initialPrompt !== undefined ? cursorPromptText(initialPrompt) : undefined;
    throwIfAborted(options.signal);
    const env = buildCursorEnv(options);
    const cliPath = findCursorCli({ cliPath: options.cliPath, env });
    const version = await checkVersionOnce(cliPath, env);
    throwIfAborted(options.signal);
    const session = new CursorSession({
      options,
      cli: { path: cliPath, version },
      spawnTurn: (args) =>
        cliTransport(options, { command: cliPath, args, env, stdin: "ignore", cliName: "cursor-agent" }),
    });
    return openOrClose(session, async () => {
      if (firstTurn !== undefined) await session.send(firstTurn);
    });
  }
}
