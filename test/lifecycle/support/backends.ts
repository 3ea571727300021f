/**
 * The backends the lifecycle suite runs against. Each is one row: a descriptor that says how to run
 * that backend's stand-in CLI in each fault mode, and what the backend supports. To add a backend,
 * write a fake CLI that implements the {@link Fault} contract below and append a descriptor to
 * {@link LIFECYCLE_BACKENDS}; every case then runs against it (cases needing a feature the backend
 * lacks are skipped).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AgentOptions, BackendKind } from "../../../src/index.js";

/**
 * What a fake CLI must do in each mode. Every mode first starts the requested grandchild, then
 * writes `{"pid","grandchildPid"}` to the pid file, then records `{argv, envKeys, users}` (users:
 * the text of every user turn received, verbatim) to the record file.
 *
 * - `ok`: completes every handshake; answers each user turn with a result "ok"; exits 0 at EOF.
 * - `exit-before-output`: writes "fatal: simulated startup failure" to stderr, exits 3, no stdout.
 * - `exit-after-handshake-stdin-closed`: completes the handshake, closes stdin in the same instant,
 *   writes the same stderr line and exits 3 ~200 ms later: the SDK's first user-turn write fails
 *   (EPIPE) before the exit status exists.
 * - `crash-mid-stream`: on a turn, emits assistant texts "first" and "second", then SIGKILLs itself.
 * - `non-json-line`: on a turn, writes the line `this is not json`, then an assistant message and a
 *   result, both with the text "after garbage".
 * - `truncated-line`: on a turn, emits assistant "before the cut", then half a JSON line without a
 *   newline, then exits 0.
 * - `split-line`: on a turn, writes an assistant message whose text is {@link splitText} one byte per
 *   write, then a result "split ok".
 * - `big-line`: on a turn, writes one assistant line of exactly `lineBytes` bytes (text of `x`s),
 *   then a result.
 * - `never-answers-handshake`: never answers the session handshake.
 * - `ignores-control`: answers the handshake and user turns, never answers control requests.
 * - `ignores-eof`: like `ok`, but stays alive when stdin closes.
 * - `stall`: on a turn, emits assistant "working" and then nothing, ever (ignores EOF too).
 * - `callback`: a turn's text (from {@link LifecycleBackend.callbacks}) asks the fake to make one
 *   callback request of the SDK; its result text reports the answer verbatim.
 * - `out-of-order`: holds the first control request until the second arrives, then answers the
 *   second and then the first, each with `{ echo: <request> }`.
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

export interface LifecycleBackend {
  name: BackendKind;
  /** Options running this backend's fake CLI in `fault` mode; `extra` is merged in (env too). */
  fake(fault: Fault, run: FakeRun, knobs?: FakeKnobs, extra?: AgentOptions): AgentOptions;
  /** The fake CLI as a script that finds its interpreter on PATH (`#!/usr/bin/env <name>`). */
  pathDependentFake(dir: string): { cliPath: string; interpreterDir: string; interpreter: string };
  /** Name of the handshake request (`ControlTimeoutError.subtype` when it goes unanswered). */
  handshakeSubtype: string;
  /** Control-request names as they appear in `ControlTimeoutError.subtype`. */
  controlSubtypes: { interrupt?: string; setModel?: string };
  /** Raw control requests (`client.controlRequest`) are supported. */
  rawControlRequests: boolean;
  /** How `callback` turns are asked for and read back; absent when the backend has no callbacks. */
  callbacks?: {
    supported: readonly CallbackKind[];
    /**
     * The turn text that makes the fake request `kind`: permission for `toolName`, the hook
     * registered `hookIndex`-th, or MCP tool `tool` of server `server`, with `input`.
     */
    trigger(kind: CallbackKind, args: CallbackArgs): string;
    /** Decodes the result text of a callback turn. For MCP, `value` is the tool-call result. */
    answer(kind: CallbackKind, resultText: string): CallbackAnswer;
  };
  /** Variables the SDK itself adds to the CLI's environment (all it adds with `inheritEnv: false`). */
  sdkEnvKeys: readonly string[];
  /**
   * Permission flags: argv entries that must never appear unless asked for, the options that ask
   * for bypassing permissions, and the argv those must produce.
   */
  permissions: { neverByDefault: readonly string[]; bypass: AgentOptions; bypassArgs: readonly string[] };
  /** Builds a fast stand-in for the soak test in `dir`; returns options, or a reason to skip. */
  fastCli(dir: string): { options: AgentOptions } | { skip: string };
}

/** The text the `split-line` fault writes byte by byte (multi-byte characters on purpose). */
export function splitText(bytes = 100 * 1024): string {
  const unit = "héllo wörld — ☃ 🌍 ";
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
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

let claudeLauncher: string | undefined;

/**
 * The fake as an executable that needs nothing from the environment: an absolute-path shebang to
 * this very node, so it runs with PATH removed (a `#!/usr/bin/env node` script would not).
 */
function fakeClaudeLauncher(): string {
  if (!claudeLauncher) {
    const dir = mkdtempSync(join(tmpdir(), "cas-lifecycle-bin-"));
    claudeLauncher = join(dir, "claude");
    writeFileSync(
      claudeLauncher,
      `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(FAKE_CLAUDE).href)});\n`,
    );
    chmodSync(claudeLauncher, 0o755);
  }
  return claudeLauncher;
}

export const claudeBackend: LifecycleBackend = {
  name: "claude",
  fake(fault, run, knobs = {}, extra = {}) {
    return {
      ...extra,
      cliPath: fakeClaudeLauncher(),
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
  pathDependentFake(dir) {
    const interpreter = "cas-lifecycle-node";
    const interpreterDir = join(dir, "interp");
    mkdirSync(interpreterDir, { recursive: true });
    symlinkSync(process.execPath, join(interpreterDir, interpreter));
    const cliPath = join(dir, "claude-needs-path");
    writeFileSync(
      cliPath,
      `#!/usr/bin/env ${interpreter}\nimport(${JSON.stringify(pathToFileURL(FAKE_CLAUDE).href)});\n`,
    );
    chmodSync(cliPath, 0o755);
    return { cliPath, interpreterDir, interpreter };
  },
  handshakeSubtype: "initialize",
  controlSubtypes: { interrupt: "interrupt", setModel: "set_model" },
  rawControlRequests: true,
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
  },
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
    const cc = findCompiler();
    if (!cc) return { skip: "no C compiler (cc/gcc/clang) on PATH to build the fast stand-in CLI" };
    const binary = join(dir, "fast-claude");
    execFileSync(cc, ["-O2", "-o", binary, FAST_CLAUDE_SRC], { stdio: "pipe" });
    return { options: { cliPath: binary, env: { CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1" } } };
  },
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

/** Every backend the lifecycle suite covers. Codex and Cursor rows are added by their owners. */
export const LIFECYCLE_BACKENDS: readonly LifecycleBackend[] = [claudeBackend];
