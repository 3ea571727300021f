/**
 * The Claude Code backend: discovery, option checks, and sessions over the real `claude` CLI.
 */
import { SdkMcpBridge } from "../../mcp/bridge.js";
import type { AgentOptions } from "../../options.js";
import { isStreamedPrompt } from "../../prompt.js";
import { SubprocessTransport } from "../../transport/subprocess.js";
import type { Transport } from "../../transport/transport.js";
import { SDK_VERSION } from "../../version.js";
import type { Backend, Capabilities, OpenSessionParams, Session } from "../backend.js";
import { buildClaudeArgs } from "./command.js";
import { checkClaudeVersion, findClaudeCli } from "./discovery.js";
import { buildClaudeEnv, resolveUser } from "./env.js";
import { ClaudeSession } from "./session.js";
import { validateClaudeOptions } from "./validate.js";

/** Default largest JSON line accepted from the CLI: big tool results and images fit comfortably. */
export const DEFAULT_MAX_BUFFER_SIZE = 64 * 1024 * 1024;

const CLAUDE_CAPABILITIES: Capabilities = Object.freeze({
  controlProtocol: true,
  toolApproval: true,
  hooks: true,
  sdkMcpRouting: true,
  persistentSession: true,
  interrupt: true,
  runtimeConfigChanges: true,
  modelSwitching: true,
  mcpStatus: true,
});

/** One version check (and at most one warning) per binary per process. */
const versionChecks = new Map<string, Promise<void>>();

function checkVersionOnce(cliPath: string, env: Record<string, string>): Promise<void> {
  let check = versionChecks.get(cliPath);
  if (!check) {
    check = checkClaudeVersion(cliPath, env).then(({ warning }) => {
      if (warning) process.emitWarning(warning, { code: "CODE_AGENT_SDK_CLI_VERSION" });
    });
    versionChecks.set(cliPath, check);
  }
  return check;
}

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
    try {
      await bridge.start(sdkConfigs);
      await session.start();
      if (params.initialPrompt !== undefined && !isStreamedPrompt(params.initialPrompt)) {
        await session.send(params.initialPrompt);
      }
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  private async spawnTransport(options: AgentOptions, sdkMcpServerNames: string[]): Promise<Transport> {
    const env = buildClaudeEnv(options, SDK_VERSION);
    const cliPath = findClaudeCli({ cliPath: options.cliPath, env });
    await checkVersionOnce(cliPath, env);
    const user = resolveUser(options.user);
    return new SubprocessTransport({
      command: cliPath,
      args: buildClaudeArgs(options, { sdkMcpServerNames }),
      cwd: options.cwd ?? process.cwd(),
      env,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      ...(options.stderr ? { onStderrLine: options.stderr } : {}),
      maxBufferSize: options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
      ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
      cliName: "claude",
    });
  }
}
