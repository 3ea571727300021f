/**
 * The ACP backend: any coding agent that speaks the Agent Client Protocol on stdio (Gemini CLI,
 * Qwen Code, OpenCode, GitHub Copilot CLI, Kilo Code, Claude Code and Codex through Zed's adapters),
 * driven through the official `@agentclientprotocol/sdk` client.
 */
import { ProcessError } from "../../errors.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { describeBadCwd } from "../../process/child.js";
import { buildChildEnv } from "../../process/child-env.js";
import { cliTransport, openOrClose, singleInitialPrompt } from "../../session/open-session.js";
import type { Backend, OpenSessionParams, Session } from "../backend.js";
import { ACP_CAPABILITIES } from "../capabilities.js";
import { type AcpCommand, resolveAcpCommand, withPresetEnv } from "./presets.js";
import { AcpSession } from "./session.js";
import { validateAcpOptions } from "./validate.js";

export { ACP_CAPABILITIES };

/** Drives an ACP agent: one process, one ACP session, one `session/prompt` per turn. */
export class AcpBackend implements Backend {
  readonly name = "acp" as const;
  readonly capabilities = ACP_CAPABILITIES;

  validateOptions(options: ResolvedOptions): void {
    validateAcpOptions(options);
  }

  async openSession(params: OpenSessionParams): Promise<Session> {
    const { options } = params;
    this.validateOptions(options);
    const session = newAcpSession(options);
    const prompt = singleInitialPrompt(params);
    return openOrClose(session, async () => {
      await session.start();
      if (prompt !== undefined) await session.send(prompt);
    });
  }
}

/**
 * A not yet started session of the agent `options` name (validated options): its executable
 * resolved, its environment built, its working directory checked; nothing spawned.
 *
 * @throws CliNotFoundError when the agent's executable is not found; ProcessError for a bad `cwd`.
 */
export function newAcpSession(options: ResolvedOptions): AcpSession {
  const env = withPresetEnv(options.acp, buildChildEnv(options));
  const command = resolveAcpCommand(options.acp ?? {}, options.cliPath, { env });
  // The workspace boundary is computed from the cwd before anything runs: a bad one fails here.
  const cwdProblem = options.cwd === undefined ? undefined : describeBadCwd(options.cwd);
  if (cwdProblem !== undefined) {
    throw new ProcessError(`Failed to start ${command.name} ("${command.command}"): ${cwdProblem}`, {
      exitCode: null,
    });
  }
  return new AcpSession({
    options,
    agent: command.name,
    env,
    transport: cliTransport(options, {
      command: command.command,
      args: acpArgs(command, options),
      env,
      cliName: command.name,
    }),
  });
}

/** The agent's argv after the executable: its ACP arguments, then `extraArgs` as `--flag value`. */
export function acpArgs(command: AcpCommand, options: Pick<ResolvedOptions, "extraArgs">): string[] {
  const args = [...command.args];
  for (const [flag, value] of Object.entries(options.extraArgs ?? {})) {
    args.push(`--${flag}`);
    if (value !== null) args.push(value);
  }
  return args;
}
