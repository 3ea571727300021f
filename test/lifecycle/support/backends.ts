/**
 * The backends the lifecycle suite runs against. Each is one row: a descriptor that says how to run
 * that backend's stand-in CLI in each fault mode, and what the backend supports. To add a backend,
 * write a fake CLI that implements the {@link Fault} contract below and append a descriptor to
 * {@link LIFECYCLE_BACKENDS}; every case then runs against it (cases needing a feature the backend
 * lacks are skipped).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll } from "vitest";
import type { AgentOptions, AgentSdkClient, BackendKind, Message } from "../../../src/index.js";
import type { ResolvedOptions } from "../../../src/options/resolved.js";

/**
 * What a fake CLI must do in each mode. Every mode first starts the requested grandchild, then
 * writes `{"pid","grandchildPid"}` to the pid file, then records `{argv, envKeys, users}` (users:
 * the text of every user turn received, verbatim) to the record file. A backend that runs one
 * process per turn (Cursor) does this in every turn's process, keeps the users of earlier turns,
 * and lists earlier turns' pids as `previous` in the pid file.
 *
 * "Handshake" and "control request" mean the backend's own: Claude's `initialize` and control
 * requests; Codex app-server's `initialize` → `thread/start` and its JSON-RPC requests
 * (`turn/interrupt`, `mcpServerStatus/list`). A backend without one skips the cases about it (see
 * {@link LifecycleBackend.skip}).
 *
 * - `ok`: completes every handshake; answers each user turn with a result "ok"; exits 0 at EOF.
 * - `exit-before-output`: writes "fatal: simulated startup failure" to stderr, exits 3, no stdout.
 * - `exit-after-handshake-stdin-closed`: completes the handshake (if any), closes stdin in the same
 *   instant, writes the same stderr line and exits 3 ~200 ms later: the SDK's next write (the user
 *   turn; Codex exec: the prompt) fails (EPIPE) before the exit status exists.
 * - `crash-mid-stream`: on a turn, emits assistant texts "first" and "second", then SIGKILLs itself.
 * - `non-json-line`: on a turn, writes the line `this is not json`, then an assistant message and a
 *   result, both with the text "after garbage".
 * - `truncated-line`: on a turn, emits assistant "before the cut", then the first half of a JSON
 *   line (an event the backend emits) without a newline, then exits 0.
 * - `split-line`: on a turn, writes an assistant message whose text is {@link splitText} one byte per
 *   write, then a result "split ok".
 * - `big-line`: on a turn, writes one assistant line of exactly `lineBytes` bytes (text of `x`s),
 *   then a result "big line of <lineBytes> bytes".
 * - `never-answers-handshake`: never answers the handshake request `knobs.unansweredStep` (default:
 *   the first).
 * - `ignores-control`: answers the handshake and user turns, never answers control requests. A
 *   turn whose text is `hold` may be held (result "ok") until a control request arrives, so there
 *   is a running turn to interrupt.
 * - `ignores-eof`: like `ok`, but stays alive when stdin closes (Cursor, which has no stdin: stays
 *   alive after its result).
 * - `stall`: on a turn, emits assistant "working" and then nothing, ever (ignores EOF too).
 * - `callback`: a turn's text (from {@link LifecycleBackend.callbacks}) asks the fake to make one
 *   callback request of the SDK; its result text reports the answer verbatim.
 * - `out-of-order`: holds the first control request until the second arrives, then answers the
 *   second and then the first, each naming its request (see `concurrentRequests`).
 */
export type Fault =
  | "ok"
  | "exit-before-output"
  | "exit-after-handshake-stdin-closed"
  | "crash-mid-stream"
  | "non-json-line"
  | "truncated-line"
  | "split-line"
  | "big-line"
  | "never-answers-handshake"
  | "ignores-control"
  | "ignores-eof"
  | "stall"
  | "callback"
  | "out-of-order";

/**
 * A grandchild the fake starts before anything else: in its process group without stdio (`sleep`),
 * in its group inheriting stdout/stderr (`holds-stdout`), or in a new session inheriting them
 * (`escaped`: out of reach of process-group signals, by construction).
 */
export type Grandchild = "none" | "sleep" | "holds-stdout" | "escaped";

/** Per-case scratch files. */
export interface FakeRun {
  dir: string;
  /** Where the fake writes its pids. */
  pidsFile: string;
  /** Where the fake records argv, env keys and user turns. */
  recordFile: string;
}

export interface FakeKnobs {
  grandchild?: Grandchild;
  /** The CLI ignores SIGTERM (close must escalate to SIGKILL). */
  ignoreTerm?: boolean;
  /** `big-line`: exact byte length of the line. */
  lineBytes?: number;
  /** `never-answers-handshake`: the handshake step left unanswered (default: the first). */
  unansweredStep?: string;
}

/** Which callback a `callback` turn asks for. */
export type CallbackKind = "canUseTool" | "hook" | "mcpTool";

export interface CallbackArgs {
  toolName?: string;
  hookIndex?: number;
  server?: string;
  tool?: string;
  input?: object;
}

/** What the fake CLI received in answer to a callback request. */
export type CallbackAnswer = { kind: "error"; message: string } | { kind: "ok"; value: unknown };

/** Client methods that send a control request. */
export type ControlMethod = "interrupt" | "setModel" | "getMcpStatus";

/** What a case can need that a backend may lack: a fault its fake cannot model, or a feature. */
export type Requirement = Fault | ControlMethod | CallbackKind | "handshake" | "concurrentRequests";

export interface LifecycleBackend {
  name: BackendKind;
  /** Options running this backend's fake CLI in `fault` mode; `extra` is merged in (env too). */
  fake(fault: Fault, run: FakeRun, knobs?: FakeKnobs, extra?: ResolvedOptions): AgentOptions;
  /** The fake CLI as a script that finds its interpreter on PATH (`#!/usr/bin/env <name>`). */
  pathDependentFake(dir: string): { cliPath: string; interpreterDir: string; interpreter: string };
  /** What this backend lacks, with the reason; every case needing it is skipped with that reason. */
  skip: Partial<Record<Requirement, string>>;
  /** The session handshake; absent when there is none (then `skip.handshake` says why). */
  handshake?: {
    /** Its requests in order, as `ControlTimeoutError.subtype` names them. */
    steps: readonly string[];
    /** Options that make a one-shot `query()` go through the handshake (Codex: the app-server). */
    queryOptions: ResolvedOptions;
  };
  /** The request each client method sends, as `ControlTimeoutError.subtype` names it. */
  controlRequests: Partial<Record<ControlMethod, string>>;
  /** Two requests of the same kind in flight at once (case 10). */
  concurrentRequests?: {
    /** Sends one request; `tag` is "A" for the one sent first, "B" for the second. */
    send(client: AgentSdkClient, tag: "A" | "B"): Promise<unknown>;
    /** The request an answer names (the fake echoes it, or names it by arrival order). */
    tagOf(response: unknown): string | undefined;
  };
  /** How `callback` turns are asked for and read back; absent when the backend has no callbacks. */
  callbacks?: {
    supported: readonly CallbackKind[];
    /**
     * The turn text that makes the fake request `kind`: permission for `toolName`, the hook
     * registered `hookIndex`-th, or MCP tool `tool` of server `server`, with `input`.
     */
    trigger(kind: CallbackKind, args: CallbackArgs): string;
    /**
     * Decodes the result text of a callback turn (`messages`: the whole turn, for a reason the
     * backend reports in-band). For MCP, `value` is the tool-call result; for a permission, the
     * decision as a `PermissionResult`.
     */
    answer(kind: CallbackKind, resultText: string, messages: readonly Message[]): CallbackAnswer;
    /** The `toolName` a `canUseTool` callback sees for a permission asked for `toolName`. */
    subjectOf(toolName: string, input: Record<string, unknown>): string;
  };
  /** How the prompt reaches the CLI: on stdin, or as one argv element after `--`. */
  promptVia: "stdin" | "argv";
  /** Options that put `a` and `b` into the CLI's argv, each as one element (security). */
  argvOptions(a: string, b: string): ResolvedOptions;
  /** Variables the SDK itself adds to the CLI's environment (all it adds with `inheritEnv: false`). */
  sdkEnvKeys: readonly string[];
  /**
   * Permission flags: argv entries (or handshake settings) that must never appear unless asked for,
   * the options that ask for bypassing permissions, and the argv those must produce.
   */
  permissions: { neverByDefault: readonly string[]; bypass: ResolvedOptions; bypassArgs: readonly string[] };
  /** Builds a fast stand-in for the soak test in `dir`; returns options, or a reason to skip. */
  fastCli(dir: string): { options: AgentOptions } | { skip: string };
}

/** The text the `split-line` fault writes byte by byte (multi-byte characters on purpose). */
export function splitText(bytes = 100 * 1024): string {
  const unit = "héllo wörld — ☃ 🌍 ";
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
}

/**
 * A fake as an executable that needs nothing from the environment: an absolute-path shebang to
 * this very node, so it runs with PATH removed (a `#!/usr/bin/env node` script would not).
 */
const launchers = new Map<string, string>();
// Made on first use, by whichever test of the file asks; removed after the file.
afterAll(() => {
  for (const path of launchers.values()) rmSync(dirname(path), { recursive: true, force: true });
  launchers.clear();
});
function launcher(name: string, script: string): string {
  let path = launchers.get(name);
  if (!path) {
    const dir = mkdtempSync(join(tmpdir(), "cas-lifecycle-bin-"));
    path = join(dir, name);
    writeFileSync(path, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(script).href)});\n`);
    chmodSync(path, 0o755);
    launchers.set(name, path);
  }
  return path;
}

/** A fake as a script whose interpreter must be found on PATH. */
function pathDependentLauncher(dir: string, name: string, script: string) {
  const interpreter = "cas-lifecycle-node";
  const interpreterDir = join(dir, "interp");
  mkdirSync(interpreterDir, { recursive: true });
  symlinkSync(process.execPath, join(interpreterDir, interpreter));
  const cliPath = join(dir, `${name}-needs-path`);
  writeFileSync(
    cliPath,
    `#!/usr/bin/env ${interpreter}\nimport(${JSON.stringify(pathToFileURL(script).href)});\n`,
  );
  chmodSync(cliPath, 0o755);
  return { cliPath, interpreterDir, interpreter };
}

/** Compiles one C stand-in into `dir` for the soak, or says why it cannot. */
function compile(dir: string, source: string, name: string): string | { skip: string } {
  const cc = findCompiler();
  if (!cc) return { skip: "no C compiler (cc/gcc/clang) on PATH to build the fast stand-in CLI" };
  const binary = join(dir, name);
  execFileSync(cc, ["-O2", "-o", binary, source], { stdio: "pipe" });
  return binary;
}

// ── Claude ────────────────────────────────────────────────────────────────────────────────────

const FAKE_CLAUDE = fileURLToPath(new URL("../../fixtures/fake-cli/fake-claude.mjs", import.meta.url));
const FAST_CLAUDE_SRC = fileURLToPath(new URL("../../fixtures/fake-cli/fast-claude.c", import.meta.url));

const CLAUDE_MODES: Record<Fault, string> = {
  ok: "ok",
  "exit-before-output": "crash-at-start",
  "exit-after-handshake-stdin-closed": "crash-after-init-stdin-closed",
  "crash-mid-stream": "crash-mid-stream",
  "non-json-line": "garbage",
  "truncated-line": "truncated",
  "split-line": "split-bytes",
  "big-line": "big-line",
  "never-answers-handshake": "hang-at-init",
  "ignores-control": "ignore-control",
  "ignores-eof": "ignore-eof",
  stall: "stall",
  callback: "callback",
  "out-of-order": "out-of-order",
};

export const claudeBackend: LifecycleBackend = {
  name: "claude",
  fake(fault, run, knobs = {}, extra = {}) {
    return {
      ...extra,
      cliPath: launcher("claude", FAKE_CLAUDE),
      env: {
        CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1",
        FAKE_CLAUDE_MODE: CLAUDE_MODES[fault],
        FAKE_CLAUDE_PIDS: run.pidsFile,
        FAKE_CLAUDE_RECORD: run.recordFile,
        FAKE_CLAUDE_GRANDCHILD: knobs.grandchild ?? "sleep",
        ...(knobs.ignoreTerm ? { FAKE_CLAUDE_IGNORE_TERM: "1" } : {}),
        ...(knobs.lineBytes !== undefined ? { FAKE_CLAUDE_LINE_BYTES: String(knobs.lineBytes) } : {}),
        ...extra.env,
      },
    };
  },
  pathDependentFake: (dir) => pathDependentLauncher(dir, "claude", FAKE_CLAUDE),
  skip: {},
  handshake: { steps: ["initialize"], queryOptions: {} },
  controlRequests: { interrupt: "interrupt", setModel: "set_model", getMcpStatus: "mcp_status" },
  concurrentRequests: {
    send: (client, tag) => client.controlRequest({ subtype: "fake_echo", tag }),
    tagOf(response) {
      const echo = (response as { echo?: { subtype?: string; tag?: string } }).echo;
      return echo?.subtype === "fake_echo" ? echo.tag : undefined;
    },
  },
  callbacks: {
    supported: ["canUseTool", "hook", "mcpTool"],
    trigger(kind, args) {
      switch (kind) {
        case "canUseTool":
          return JSON.stringify({
            subtype: "can_use_tool",
            tool_name: args.toolName ?? "Bash",
            input: args.input ?? {},
          });
        case "hook":
          // Hooks get ids hook_0, hook_1, … in declaration order (see HookRegistry).
          return JSON.stringify({
            subtype: "hook_callback",
            callback_id: `hook_${args.hookIndex ?? 0}`,
            input: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {} },
          });
        case "mcpTool":
          return JSON.stringify({
            subtype: "mcp_message",
            server_name: args.server ?? "calc",
            message: {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: args.tool, arguments: args.input ?? {} },
            },
          });
      }
    },
    answer(kind, resultText) {
      const response = JSON.parse(resultText) as {
        subtype: string;
        error?: string;
        response?: { mcp_response?: { result?: unknown; error?: unknown } };
      };
      if (response.subtype === "error") return { kind: "error", message: String(response.error) };
      if (kind === "mcpTool") return { kind: "ok", value: response.response?.mcp_response?.result };
      return { kind: "ok", value: response.response };
    },
    subjectOf: (toolName) => toolName,
  },
  promptVia: "stdin",
  argvOptions: (a, b) => ({ model: a, addDirs: [b] }),
  sdkEnvKeys: ["CLAUDE_AGENT_SDK_VERSION", "CLAUDE_CODE_ENTRYPOINT"],
  permissions: {
    neverByDefault: [
      "bypassPermissions",
      "--dangerously-skip-permissions",
      "--allow-dangerously-skip-permissions",
    ],
    bypass: { permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true },
    bypassArgs: ["--permission-mode", "bypassPermissions"],
  },
  fastCli(dir) {
    const binary = compile(dir, FAST_CLAUDE_SRC, "fast-claude");
    if (typeof binary !== "string") return binary;
    return { options: { cliPath: binary, env: { CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1" } } };
  },
};

// ── Codex ─────────────────────────────────────────────────────────────────────────────────────

const FAKE_CODEX = fileURLToPath(new URL("../../fixtures/codex/fake-codex.mjs", import.meta.url));
const FAST_CODEX_SRC = fileURLToPath(new URL("../../fixtures/codex/fake-codex-fast.c", import.meta.url));

/**
 * Codex: a one-shot `query()` runs `codex exec --json` (prompt on stdin, no handshake, no requests);
 * `AgentSdkClient` and the one-shot queries that need a live channel run `codex app-server`
 * (JSON-RPC: `initialize` → `thread/start` → `turn/start`). The stand-in speaks both.
 */
export const codexBackend: LifecycleBackend = {
  name: "codex",
  fake(fault, run, knobs = {}, extra = {}) {
    return {
      ...extra,
      backend: "codex",
      cliPath: launcher("codex", FAKE_CODEX),
      env: {
        FAKE_CODEX_MODE: fault,
        FAKE_CODEX_PIDS: run.pidsFile,
        FAKE_CODEX_RECORD: run.recordFile,
        FAKE_CODEX_GRANDCHILD: knobs.grandchild ?? "sleep",
        ...(knobs.ignoreTerm ? { FAKE_CODEX_IGNORE_TERM: "1" } : {}),
        ...(knobs.lineBytes !== undefined ? { FAKE_CODEX_LINE_BYTES: String(knobs.lineBytes) } : {}),
        ...(knobs.unansweredStep !== undefined ? { FAKE_CODEX_UNANSWERED: knobs.unansweredStep } : {}),
        ...extra.env,
      },
    };
  },
  pathDependentFake: (dir) => pathDependentLauncher(dir, "codex", FAKE_CODEX),
  skip: {
    setModel:
      "setModel() sends nothing to codex: the model travels with the next turn/start, so there is no request to leave unanswered",
    hook: "codex has no hooks (the `hooks` option is refused up front)",
    mcpTool:
      "codex cannot route in-process (sdk) MCP servers (refused up front); its MCP servers are processes of its own",
  },
  // The exec path has no handshake; `includePartialMessages` needs the live channel, so a one-shot
  // query() with it runs the app-server.
  handshake: { steps: ["initialize", "thread/start"], queryOptions: { includePartialMessages: true } },
  controlRequests: { interrupt: "turn/interrupt", getMcpStatus: "mcpServerStatus/list" },
  concurrentRequests: {
    send: (client) => client.getMcpStatus(),
    // The fake names each answer by the arrival order of its request: "A" first.
    tagOf: (response) => (response as { name?: string }[])[0]?.name,
  },
  callbacks: {
    supported: ["canUseTool"],
    // A command approval (item/commandExecution/requestApproval) for the command `toolName`:
    // canUseTool sees it as Bash with `{ command, cwd }`.
    trigger: (_kind, args) => JSON.stringify({ approval: "command", command: args.toolName ?? "true" }),
    answer(_kind, resultText, messages) {
      const response = JSON.parse(resultText) as {
        result?: { decision?: unknown };
        error?: { message?: string };
      };
      if (response.error) return { kind: "error", message: String(response.error.message) };
      const decision = response.result?.decision;
      if (decision === "accept" || decision === "acceptForSession") {
        return { kind: "ok", value: { behavior: "allow" } };
      }
      // The CLI only hears "decline"; why reaches the caller in-band (system/codex_approval_error).
      const problem = messages.find((m) => m.type === "system" && m.subtype === "codex_approval_error");
      const why = problem?.type === "system" ? String(problem.data.error) : `declined (${String(decision)})`;
      return { kind: "error", message: why };
    },
    subjectOf: (toolName, input) =>
      toolName === "Bash" && typeof input.command === "string" ? input.command : toolName,
  },
  promptVia: "stdin",
  argvOptions: (a, b) => ({ model: a, addDirs: [b] }),
  sdkEnvKeys: [],
  permissions: {
    neverByDefault: ["--dangerously-bypass-approvals-and-sandbox", "--yolo", "danger-full-access"],
    bypass: { codex: { sandboxMode: "danger-full-access" } },
    bypassArgs: ["--sandbox", "danger-full-access"],
  },
  fastCli(dir) {
    const binary = compile(dir, FAST_CODEX_SRC, "fast-codex");
    if (typeof binary !== "string") return binary;
    return { options: { backend: "codex", cliPath: binary } };
  },
};

// ── Cursor ────────────────────────────────────────────────────────────────────────────────────

const FAKE_CURSOR = fileURLToPath(new URL("../../fixtures/cursor/fake-cursor-agent.mjs", import.meta.url));
const FAST_CURSOR_SRC = fileURLToPath(new URL("../../fixtures/cursor/fast-cursor-agent.c", import.meta.url));

const NO_PROTOCOL =
  "cursor-agent has no input protocol: one --print process per turn, prompt in argv, stdin unused";

/** Cursor: one `cursor-agent --print` process per turn, the prompt after `--`, no stdin. */
export const cursorBackend: LifecycleBackend = {
  name: "cursor",
  fake(fault, run, knobs = {}, extra = {}) {
    return {
      ...extra,
      backend: "cursor",
      cliPath: launcher("cursor-agent", FAKE_CURSOR),
      env: {
        CURSOR_API_KEY: "sk-cursor-lifecycle",
        CURSOR_AGENT_SDK_SKIP_VERSION_CHECK: "1",
        FAKE_CURSOR_FAULT: fault,
        FAKE_CURSOR_PIDS: run.pidsFile,
        FAKE_CURSOR_STATE: run.recordFile,
        FAKE_CURSOR_CHATS_DIR: join(run.dir, "chats"),
        FAKE_CURSOR_GRANDCHILD: knobs.grandchild ?? "sleep",
        ...(knobs.ignoreTerm ? { FAKE_CURSOR_IGNORE_TERM: "1" } : {}),
        ...(knobs.lineBytes !== undefined ? { FAKE_CURSOR_LINE_BYTES: String(knobs.lineBytes) } : {}),
        ...extra.env,
      },
    };
  },
  pathDependentFake: (dir) => pathDependentLauncher(dir, "cursor-agent", FAKE_CURSOR),
  skip: {
    "exit-after-handshake-stdin-closed": `${NO_PROTOCOL}: no write can fail before the exit status exists`,
    handshake: `${NO_PROTOCOL}: nothing to leave unanswered`,
    interrupt: `${NO_PROTOCOL}: interrupt() ends the turn's process (covered by 8)`,
    setModel: "cursor has no model switching (setModel throws UnsupportedFeatureError)",
    getMcpStatus: "cursor has no MCP status (getMcpStatus throws UnsupportedFeatureError)",
    canUseTool: "cursor-agent --print has no permission callback (canUseTool is refused up front)",
    hook: "cursor-agent has no hooks (refused up front)",
    mcpTool: "cursor-agent cannot route in-process MCP servers (refused up front)",
    concurrentRequests: `${NO_PROTOCOL}: no requests to answer out of order`,
  },
  controlRequests: {},
  promptVia: "argv",
  argvOptions: (a, b) => ({ model: a, extraArgs: { header: b } }),
  sdkEnvKeys: [],
  permissions: {
    neverByDefault: ["--force", "-f", "--yolo", "disabled"],
    bypass: { cursor: { forceApprove: true } },
    bypassArgs: ["--force"],
  },
  fastCli(dir) {
    const binary = compile(dir, FAST_CURSOR_SRC, "fast-cursor-agent");
    if (typeof binary !== "string") return binary;
    return {
      options: { backend: "cursor", cliPath: binary, env: { CURSOR_AGENT_SDK_SKIP_VERSION_CHECK: "1" } },
    };
  },
};

// ── ACP ───────────────────────────────────────────────────────────────────────────────────────

const FAKE_ACP = fileURLToPath(new URL("../../fixtures/acp/fake-acp-agent.mjs", import.meta.url));

/**
 * ACP: one agent process, JSON-RPC (`initialize` → `session/new` → `session/prompt` per turn). The
 * stand-in speaks the captured shapes, with no ACP library of its own.
 */
export const acpBackend: LifecycleBackend = {
  name: "acp",
  fake(fault, run, knobs = {}, extra = {}) {
    return {
      ...extra,
      backend: "acp",
      acp: { ...extra.acp, command: launcher("fake-acp-agent", FAKE_ACP) },
      env: {
        FAKE_ACP_FAULT: fault,
        FAKE_ACP_PIDS: run.pidsFile,
        FAKE_ACP_RECORD: run.recordFile,
        FAKE_ACP_GRANDCHILD: knobs.grandchild ?? "sleep",
        ...(knobs.ignoreTerm ? { FAKE_ACP_IGNORE_TERM: "1" } : {}),
        ...(knobs.lineBytes !== undefined ? { FAKE_ACP_LINE_BYTES: String(knobs.lineBytes) } : {}),
        ...(knobs.unansweredStep !== undefined ? { FAKE_ACP_UNANSWERED: knobs.unansweredStep } : {}),
        ...extra.env,
      },
    };
  },
  pathDependentFake: (dir) => pathDependentLauncher(dir, "fake-acp-agent", FAKE_ACP),
  skip: {
    "exit-after-handshake-stdin-closed":
      "the ACP handshake ends with the session's init message, so the consumer has a message before the failed prompt write (the ProcessError itself is checked in the ACP unit tests)",
    interrupt:
      "interrupt() is session/cancel, a notification: nothing to leave unanswered (waiting for the cancelled turn's result is bounded by controlTimeoutMs, see the ACP unit tests)",
    getMcpStatus: "ACP has no MCP status request (getMcpStatus throws UnsupportedFeatureError)",
    hook: "ACP has no hooks (refused up front)",
    mcpTool: "ACP cannot route in-process MCP servers (refused up front)",
    concurrentRequests: "the client makes no requests of the agent that could be in flight together",
  },
  handshake: { steps: ["initialize", "session/new"], queryOptions: {} },
  controlRequests: { setModel: "session/set_config_option" },
  callbacks: {
    supported: ["canUseTool"],
    // The fake asks session/request_permission for a tool call whose input names the subject.
    trigger: (_kind, args) => JSON.stringify({ subject: args.toolName ?? "Bash", input: args.input ?? {} }),
    answer(_kind, resultText, messages) {
      const response = JSON.parse(resultText) as {
        result?: { outcome?: { outcome?: string; optionId?: string } };
        error?: { message?: string };
      };
      if (response.error) return { kind: "error", message: String(response.error.message) };
      const outcome = response.result?.outcome;
      if (outcome?.optionId === "proceed_once") return { kind: "ok", value: { behavior: "allow" } };
      // The agent only hears which option; why reaches the caller in-band.
      const problem = messages.find((m) => m.type === "system" && m.subtype === "acp_permission_error");
      const why =
        problem?.type === "system" ? String(problem.data.error) : `declined (${JSON.stringify(outcome)})`;
      return { kind: "error", message: why };
    },
    subjectOf: (_toolName, input) => (typeof input.subject === "string" ? input.subject : "?"),
  },
  promptVia: "stdin",
  argvOptions: (a, b) => ({ extraArgs: { first: a, second: b } }),
  sdkEnvKeys: [],
  permissions: {
    neverByDefault: ["--yolo", "yolo", "--allow-all-tools", "--dangerously-skip-permissions", "--auto"],
    bypass: { acp: { args: ["--yolo"] } },
    bypassArgs: ["--yolo"],
  },
  fastCli: () => ({
    skip: "no compiled ACP stand-in: a JSON-RPC handshake per session would need one; the node stand-in is too slow for 1 000 sessions",
  }),
};

function findCompiler(): string | undefined {
  for (const cc of ["cc", "gcc", "clang"]) {
    try {
      execFileSync(cc, ["--version"], { stdio: "ignore" });
      return cc;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

/**
 * True where the suite cannot run: its stand-ins are shebang scripts and it asserts on POSIX process
 * groups, neither of which exists on Windows (see the README's "Lifecycle guarantees").
 */
export const NOT_POSIX = process.platform === "win32";

/** Every backend the lifecycle suite covers. */
export const LIFECYCLE_BACKENDS: readonly LifecycleBackend[] = [
  claudeBackend,
  codexBackend,
  cursorBackend,
  acpBackend,
];
