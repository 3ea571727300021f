/**
 * The Cursor Agent backend: discovery, option checks, and spawn-per-turn sessions over the
 * `cursor-agent` CLI.
 */
import { ProcessError } from "../../errors.js";
import { checkVersionOncePerBinary } from "../../install/cli-discovery.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { describeBadCwd } from "../../process/child.js";
import { cliTransport, openOrClose, singleInitialPrompt } from "../../session/open-session.js";
import { throwIfAborted } from "../../signals/abort.js";
import type { Backend, OpenSessionParams, Session } from "../backend.js";
import { CURSOR_CAPABILITIES } from "../capabilities.js";
import { buildCursorEnv, cursorPromptText, PROMPT_TOO_LONG_HINT } from "./command.js";
import { checkCursorVersion, findCursorCli } from "./discovery.js";
import { CursorSession } from "./session.js";
import { validateCursorOptions } from "./validate.js";

export { CURSOR_CAPABILITIES };

const versionCheck = checkVersionOncePerBinary(checkCursorVersion);

/** Drives Cursor Agent (`cursor-agent` / `agent`): one `--print` process per turn, `--resume` between turns. */
export class CursorBackend implements Backend {
  readonly name = "cursor" as const;
  readonly capabilities = CURSOR_CAPABILITIES;

  validateOptions(options: ResolvedOptions): void {
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
    // No process runs before the first turn, so a bad `cwd` is refused here, as on every other
    // backend, rather than by the first query().
    const cwdProblem = options.cwd === undefined ? undefined : describeBadCwd(options.cwd);
    if (cwdProblem !== undefined) {
      throw new ProcessError(`Failed to start cursor-agent ("${cliPath}"): ${cwdProblem}`, {
        exitCode: null,
      });
    }
    const version = await versionCheck.run(cliPath, env);
    throwIfAborted(options.signal);
    const session = new CursorSession({
      options,
      cli: { path: cliPath, version },
      spawnTurn: (args) =>
        cliTransport(options, {
          command: cliPath,
          args,
          env,
          stdin: "ignore",
          cliName: "cursor-agent",
          argvTooLongHint: PROMPT_TOO_LONG_HINT,
        }),
    });
    return openOrClose(session, async () => {
      if (firstTurn !== undefined) await session.send(firstTurn);
    });
  }
}
