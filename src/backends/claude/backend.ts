/**
 * The Claude Code backend: discovery, option checks, and sessions over the real `claude` CLI.
 */

import { findOrInstallCli } from "../../install/auto.js";
import { checkVersionOncePerBinary } from "../../internal/cli-discovery.js";
import { cliTransport, openOrClose, singleInitialPrompt } from "../../internal/open-session.js";
import { SdkMcpBridge } from "../../mcp/bridge.js";
import type { AgentOptions } from "../../options.js";
import { DEFAULT_CLOSE_GRACE_MS } from "../../process/child.js";
import { recordTransport } from "../../transport/recording.js";
import { SpawnedProcessTransport } from "../../transport/spawned-process.js";
import { DEFAULT_MAX_BUFFER_SIZE } from "../../transport/subprocess.js";
import type { Transport } from "../../transport/transport.js";
import { SDK_VERSION } from "../../version.js";
import type { Backend, OpenSessionParams, Session } from "../backend.js";
import { CLAUDE_CAPABILITIES } from "../capabilities.js";
import { buildClaudeArgs } from "./command.js";
import {
  checkClaudeVersion,
  claudeVersionCheck,
  findClaudeCli,
  parseClaudeVersion,
  SKIP_VERSION_CHECK_ENV,
} from "./discovery.js";
import { buildClaudeEnv, resolveUser } from "./env.js";
import { ClaudeSession } from "./session.js";
import { validateClaudeOptions } from "./validate.js";
import { warmUpClaude } from "./warm-up.js";

const versionCheck = checkVersionOncePerBinary(checkClaudeVersion);

/** Drives Claude Code (`claude`) over stream-json with the control protocol. */
export class ClaudeBackend implements Backend {
  readonly name = "claude" as const;
  readonly capabilities = CLAUDE_CAPABILITIES;

  validateOptions(options: AgentOptions): void {
    validateClaudeOptions(options);
  }

  warmUp(): Promise<void> {
    return warmUpClaude(this);
  }

  async openSession(params: OpenSessionParams): Promise<Session> {
    const { options } = params;
    this.validateOptions(options);
    const sdkConfigs = SdkMcpBridge.sdkConfigs(options.mcpServers);
    const { transport: channel, onCliVersion } = options.transport
      ? { transport: options.transport, onCliVersion: undefined }
      : await this.spawnTransport(options, [...sdkConfigs.keys()]);
    const transport = options.record
      ? recordTransport(channel, options.record, {
          backend: "claude",
          sdkVersion: SDK_VERSION,
          env: buildClaudeEnv(options, SDK_VERSION),
        })
      : channel;
    const bridge = new SdkMcpBridge();
    const session = new ClaudeSession({ options, transport, bridge, onCliVersion });
    const prompt = singleInitialPrompt(params);
    return openOrClose(session, async () => {
      await bridge.start(sdkConfigs);
      await session.start();
      if (prompt !== undefined) await session.send(prompt);
    });
  }

  private async spawnTransport(
    options: AgentOptions,
    sdkMcpServerNames: string[],
  ): Promise<{ transport: Transport; onCliVersion: ((reported: unknown) => void) | undefined }> {
    const env = buildClaudeEnv(options, SDK_VERSION);
    const cliPath = await findOrInstallCli("claude", options, () =>
      findClaudeCli({ cliPath: options.cliPath, env }),
    );
    const args = buildClaudeArgs(options, { sdkMcpServerNames });
    if (options.spawnClaudeCodeProcess) {
      // The caller starts the process; version checks and uid switching are theirs too.
      const transport = new SpawnedProcessTransport({
        spawn: options.spawnClaudeCodeProcess,
        command: cliPath,
        args,
        env,
        cwd: options.cwd ?? process.cwd(),
        maxBufferSize: options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
        closeGraceMs: options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
        cliName: "claude",
      });
      return { transport, onCliVersion: undefined };
    }
    const user = resolveUser(options.user);
    const transport = cliTransport(options, {
      command: cliPath,
      args,
      env,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      cliName: "claude",
    });
    return { transport, onCliVersion: versionWatch(cliPath, env) };
  }
}

/**
 * The version check (advisory: it may warn, never fails) for a session on `cliPath`, or
 * `undefined` when it is skipped or was done for this executable already. The CLI reports its own
 * version in `system/init` (`claude_code_version`), so the check costs nothing; only a CLI that does
 * not (or a session that ends before its init) is asked with `claude -v`, the way the other SDKs
 * always do it: that is a second Claude Code process starting next to the session's own.
 */
function versionWatch(
  cliPath: string,
  env: Record<string, string>,
): ((reported: unknown) => void) | undefined {
  if (env[SKIP_VERSION_CHECK_ENV] || versionCheck.has(cliPath)) return undefined;
  return (reported) => {
    const version = typeof reported === "string" ? parseClaudeVersion(reported) : undefined;
    if (version !== undefined) versionCheck.learned(cliPath, claudeVersionCheck(version, cliPath));
    else void versionCheck.run(cliPath, env);
  };
}
