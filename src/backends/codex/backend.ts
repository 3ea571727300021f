/**
 * The Codex backend: discovery, option checks, and sessions over the real `codex` CLI.
 *
 * A one-shot `query()` runs `codex exec --json`; everything else runs `codex app-server` (JSON-RPC):
 * multi-turn clients, streamed prompts, and one-shot queries that need the live channel: a
 * `canUseTool` callback, `includePartialMessages`, an approval policy that asks (`untrusted`,
 * `on-request`; exec cannot ask), an image given by URL (exec only attaches files), or MCP
 * servers (exec would take their configs on its command line).
 */

import { findOrInstallCli } from "../../install/auto.js";
import { checkVersionOncePerBinary } from "../../install/cli-discovery.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { cliTransport, openOrClose, singleInitialPrompt } from "../../session/open-session.js";
import type { Transport } from "../../transport/transport.js";
import { SDK_VERSION } from "../../version.js";
import type { Backend, OpenSessionParams, Session } from "../backend.js";
import { CODEX_CAPABILITIES } from "../capabilities.js";
import { SKIP_VERSION_CHECK_ENV } from "../verified-versions.js";
import { CodexAppServerSession } from "./app-server-session.js";
import { buildAppServerArgs, buildCodexEnv, buildExecArgs } from "./command.js";
import { type CodexCli, codexVersionCheck, codexVersionFromPackage, findCodexCli } from "./discovery.js";
import { ExecEventMapper } from "./exec-events.js";
import { CodexExecSession } from "./exec-session.js";
import { type PromptParts, promptParts, TempFiles, writeImages } from "./prompt-input.js";
import { validateCodexOptions } from "./validate.js";
import { warmUpCodex } from "./warm-up.js";

/**
 * The Codex version check, learned without running anything: from the npm package next to the
 * binary, else from the app-server's `userAgent`. (A `codex --version` process next to every first
 * session would be one more child to outlive it.) Never `run()`.
 */
const versionCheck = checkVersionOncePerBinary(async () => ({ version: undefined }));

/**
 * The executables with no Codex package above them (a Homebrew or Cargo install, a wrapper): looked
 * for once, not at every session (up to 8 package.json reads each); their version may still come
 * from an app-server.
 */
const withoutPackage = new Set<string>();

/** Learns the version of `cli` once, if it can be known without running it. */
function learnVersionFromPackage(cli: CodexCli, env: Record<string, string>): void {
  if (env[SKIP_VERSION_CHECK_ENV]) return;
  const where = [cli.command, ...cli.args].join(" ");
  if (versionCheck.has(where) || withoutPackage.has(where)) return;
  const version = codexVersionFromPackage(cli);
  if (version !== undefined) versionCheck.learned(where, codexVersionCheck(version, where));
  else withoutPackage.add(where);
}

/** Learns the version from an app-server's `initialize` answer (`userAgent: "codex_…/0.169.0 (…)"`). */
function learnVersionFromServer(cli: CodexCli, env: Record<string, string>, session: Session): void {
  if (env[SKIP_VERSION_CHECK_ENV]) return;
  const where = [cli.command, ...cli.args].join(" ");
  if (versionCheck.has(where)) return;
  const userAgent = session.serverInfo()?.userAgent;
  const version = typeof userAgent === "string" ? /\/(\d+\.\d+\.\d+)\b/.exec(userAgent)?.[1] : undefined;
  if (version !== undefined) versionCheck.learned(where, codexVersionCheck(version, where));
}

/** Drives the OpenAI Codex CLI (`codex exec --json` and `codex app-server`). */
export class CodexBackend implements Backend {
  readonly name = "codex" as const;
  readonly capabilities = CODEX_CAPABILITIES;

  validateOptions(options: ResolvedOptions): void {
    validateCodexOptions(options);
  }

  warmUp(): Promise<void> {
    return warmUpCodex(this);
  }

  async openSession(params: OpenSessionParams): Promise<Session> {
    const { options } = params;
    this.validateOptions(options);
    const env = buildCodexEnv(options);
    // A custom transport (a replay, a remote runner) needs no CLI on this machine.
    const cli: CodexCli = options.transport
      ? { command: "codex", args: [] }
      : await findOrInstallCli(
          "codex",
          options,
          () => findCodexCli({ cliPath: options.cliPath, env }),
          (command): CodexCli => ({ command, args: [] }),
        );
    // Advisory, once per executable: an old CLI warns (CODE_AGENT_SDK_CLI_VERSION) and still runs.
    if (!options.transport) learnVersionFromPackage(cli, env);
    const prompt = singleInitialPrompt(params);
    if (params.oneShot && prompt !== undefined) {
      const parts = promptParts(prompt);
      if (execCanRun(options, parts)) return openExecSession(options, cli, env, parts);
    }
    const session = new CodexAppServerSession({
      options,
      transport: await transport(options, cli, env, buildAppServerArgs(options)),
    });
    return openOrClose(session, async () => {
      await session.start();
      if (!options.transport) learnVersionFromServer(cli, env, session);
      if (prompt !== undefined) await session.send(prompt);
    });
  }
}

/** Whether a one-shot prompt can run on `codex exec` (see the module comment). */
export function execCanRun(options: ResolvedOptions, parts: PromptParts): boolean {
  const policy = options.codex?.approvalPolicy;
  return (
    options.canUseTool === undefined &&
    !options.includePartialMessages &&
    (policy === undefined || policy === "never") &&
    parts.images.every((image) => image.kind === "base64") &&
    // exec takes MCP servers only as `-c` arguments, readable by any local user (their env,
    // headers, args); the app-server takes them in `thread/start`.
    !hasMcpServers(options)
  );
}

function hasMcpServers(options: ResolvedOptions): boolean {
  return typeof options.mcpServers === "object" && Object.keys(options.mcpServers).length > 0;
}

async function openExecSession(
  options: ResolvedOptions,
  cli: CodexCli,
  env: Record<string, string>,
  parts: PromptParts,
): Promise<Session> {
  const files = new TempFiles();
  let session: CodexExecSession | undefined;
  try {
    const images = await writeImages(parts.images, files);
    const schema = options.outputFormat?.schema;
    const outputSchema =
      schema === undefined ? undefined : await files.write("output-schema.json", JSON.stringify(schema));
    const args = buildExecArgs(options, {
      images,
      ...(outputSchema !== undefined ? { outputSchema } : {}),
    });
    session = new CodexExecSession({
      options,
      transport: await transport(options, cli, env, args),
      mapper: new ExecEventMapper({ model: options.model, structuredOutput: schema !== undefined }),
      prompt: parts.text,
      files,
    });
    await session.start();
    return session;
  } catch (error) {
    await session?.close();
    await files.remove();
    throw error;
  }
}

/**
 * The session's transport: the custom one when given, else the CLI with `args`; recorded on request
 * (recording's code is loaded by the sessions that record only).
 */
async function transport(
  options: ResolvedOptions,
  cli: CodexCli,
  env: Record<string, string>,
  args: string[],
): Promise<Transport> {
  const channel =
    options.transport ??
    cliTransport(options, { command: cli.command, args: [...cli.args, ...args], env, cliName: "codex" });
  if (!options.record) return channel;
  const { recordTransport } = await import("../../transport/recording.js");
  return recordTransport(channel, options.record, { backend: "codex", sdkVersion: SDK_VERSION, env });
}
