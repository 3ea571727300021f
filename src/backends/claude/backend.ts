/**
 * The Claude Code backend: discovery, option checks, and sessions over the real `claude` CLI.
 */

import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { findOrInstallCli } from "../../install/auto.js";
import { checkVersionOncePerBinary } from "../../install/cli-discovery.js";
import { SdkMcpBridge } from "../../mcp/bridge.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { DEFAULT_CLOSE_GRACE_MS } from "../../process/child.js";
import { PrivateFiles } from "../../process/private-files.js";
import { cliTransport, openOrClose, singleInitialPrompt } from "../../session/open-session.js";
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
import { prepareStoreResume, type StoreResume } from "./store-resume.js";
import { validateClaudeOptions } from "./validate.js";
import { warmUpClaude } from "./warm-up.js";

const versionCheck = checkVersionOncePerBinary(checkClaudeVersion);

/** Drives Claude Code (`claude`) over stream-json with the control protocol. */
export class ClaudeBackend implements Backend {
  readonly name = "claude" as const;
  readonly capabilities = CLAUDE_CAPABILITIES;

  validateOptions(options: ResolvedOptions): void {
    validateClaudeOptions(options);
  }

  warmUp(): Promise<void> {
    return warmUpClaude(this);
  }

  async openSession(params: OpenSessionParams): Promise<Session> {
    this.validateOptions(params.options);
    // A resume from a store: loaded (bounded by loadTimeoutMs) before anything is spawned.
    const fromStore = await prepareStoreResume(params.options, buildClaudeEnv(params.options, SDK_VERSION));
    try {
      return await this.openValidated(params, withStoreResume(params.options, fromStore), fromStore?.cleanup);
    } catch (error) {
      await fromStore?.cleanup();
      throw error;
    }
  }

  private async openValidated(
    params: OpenSessionParams,
    options: ResolvedOptions,
    cleanup: (() => Promise<void>) | undefined,
  ): Promise<Session> {
    const sdkConfigs = SdkMcpBridge.sdkConfigs(options.mcpServers);
    const {
      transport: channel,
      onCliVersion,
      files,
    } = options.transport
      ? { transport: options.transport, onCliVersion: undefined, files: undefined }
      : await this.spawnTransport(options, [...sdkConfigs.keys()]);
    // The private files the CLI reads its MCP configs and settings from go when the session ends.
    if (files !== undefined) {
      const previous = cleanup;
      cleanup = async () => {
        await files.removeAsync();
        await previous?.();
      };
    }
    let transport: Transport;
    try {
      // Recording's code (and its redactor) is loaded by the sessions that record only.
      transport = options.record
        ? (await import("../../transport/recording.js")).recordTransport(channel, options.record, {
            backend: "claude",
            sdkVersion: SDK_VERSION,
            env: buildClaudeEnv(options, SDK_VERSION),
          })
        : channel;
    } catch (error) {
      files?.remove();
      throw error;
    }
    const bridge = new SdkMcpBridge();
    const session = new ClaudeSession({
      options,
      transport,
      bridge,
      onCliVersion,
      ...(options.sessionStore !== undefined ? { mirrorProjectsDir: projectsDirOfChild(options) } : {}),
      ...(cleanup !== undefined ? { cleanup } : {}),
    });
    const prompt = singleInitialPrompt(params);
    return openOrClose(session, async () => {
      await bridge.start(sdkConfigs);
      await session.start();
      if (prompt !== undefined && !session.answeredAtStart) await session.send(prompt);
    });
  }

  private async spawnTransport(
    options: ResolvedOptions,
    sdkMcpServerNames: string[],
  ): Promise<{
    transport: Transport;
    onCliVersion: ((reported: unknown) => void) | undefined;
    files?: PrivateFiles;
  }> {
    const env = buildClaudeEnv(options, SDK_VERSION);
    const cliPath = await findOrInstallCli("claude", options, () =>
      findClaudeCli({ cliPath: options.cliPath, env }),
    );
    if (options.spawnClaudeCodeProcess) {
      // The caller's process may run where no local file is: the configs stay inline.
      const args = buildClaudeArgs(options, { sdkMcpServerNames, files: null });
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
    const files = new PrivateFiles("code-agent-claude-", user);
    try {
      const args = buildClaudeArgs(options, { sdkMcpServerNames, files });
      const transport = cliTransport(options, {
        command: cliPath,
        args,
        env,
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
        cliName: "claude",
      });
      return { transport, onCliVersion: versionWatch(cliPath, env), files };
    } catch (error) {
      files.remove();
      throw error;
    }
  }
}

/**
 * The options the CLI runs with after a resume from a store: the session id found (for
 * `continueConversation`, the store's newest) and, when it was materialized, the temporary
 * configuration directory holding it.
 */
function withStoreResume(options: ResolvedOptions, prepared: StoreResume | undefined): ResolvedOptions {
  if (prepared === undefined) return options;
  const out: ResolvedOptions = { ...options, continueConversation: false };
  if (prepared.resume !== undefined) out.resume = prepared.resume;
  if (prepared.configDir !== undefined) out.env = { ...options.env, CLAUDE_CONFIG_DIR: prepared.configDir };
  return out;
}

/**
 * `<CLAUDE_CONFIG_DIR>/projects` as the CLI process sees it (its environment's `CLAUDE_CONFIG_DIR`,
 * else `~/.claude`): the paths of its `transcript_mirror` frames are below it.
 */
function projectsDirOfChild(options: ResolvedOptions): string {
  const env = buildClaudeEnv(options, SDK_VERSION);
  const configDir = env.CLAUDE_CONFIG_DIR;
  const home = env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
  return join(
    configDir !== undefined && configDir !== "" ? resolve(configDir) : join(home, ".claude"),
    "projects",
  );
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
