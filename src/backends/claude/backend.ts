/**
 * The Claude Code backend: discovery, option checks, and sessions over the real `claude` CLI.
 */

import { findOrInstallCli } from "../../install/auto.js";
import { checkVersionOncePerBinary } from "../../internal/cli-discovery.js";
import { cliTransport, openOrClose, singleInitialPrompt } from "../../internal/open-session.js";
import { SdkMcpBridge } from "../../mcp/bridge.js";
import type { AgentOptions } from "../../options.js";
import type { Transport } from "../../transport/transport.js";
import { SDK_VERSION } from "../../version.js";
import type { Backend, OpenSessionParams, Session } from "../backend.js";
import { CLAUDE_CAPABILITIES } from "../capabilities.js";
import { buildClaudeArgs } from "./command.js";
import { checkClaudeVersion, findClaudeCli } from "./discovery.js";
import { buildClaudeEnv, resolveUser } from "./env.js";
import { ClaudeSession } from "./session.js";
import { validateClaudeOptions } from "./validate.js";

const checkVersionOnce = checkVersionOncePerBinary(checkClaudeVersion);

/** Drives Claude Code (`claude`) over stream-json with the control protocol. */
export class ClaudeBackend implements Backend {
  readonly name = "claude" as const;
  readonly capabilities = CLAUDE_CAPABILITIES;

  validateOptions(options: AgentOptions): void {
    validateClaudeOptions(options);
  }

  async openSession(params: OpenSessionParams): Promise<Session> {
    const { options } = params;
    this.validateOptions(options);
    const sdkConfigs = SdkMcpBridge.sdkConfigs(options.mcpServers);
    const transport = options.transport ?? (await this.spawnTransport(options, [...sdkConfigs.keys()]));
    const bridge = new SdkMcpBridge();
    const session = new ClaudeSession({ options, transport, bridge });
    const prompt = singleInitialPrompt(params);
    return openOrClose(session, async () => {
      await bridge.start(sdkConfigs);
      await session.start();
      if (prompt !== undefined) await session.send(prompt);
    });
  }

  private async spawnTransport(options: AgentOptions, sdkMcpServerNames: string[]): Promise<Transport> {
    const env = buildClaudeEnv(options, SDK_VERSION);
    const cliPath = await findOrInstallCli("claude", options, () =>
      findClaudeCli({ cliPath: options.cliPath, env }),
    );
    // Advisory only (it may warn, never fails), so it runs alongside the handshake instead of in
    // front of it: started once the session's own process is spawned (spawning is synchronous).
    setImmediate(() => void checkVersionOnce(cliPath, env));
    const user = resolveUser(options.user);
    return cliTransport(options, {
      command: cliPath,
      args: buildClaudeArgs(options, { sdkMcpServerNames }),
      env,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      cliName: "claude",
    });
  }
}
