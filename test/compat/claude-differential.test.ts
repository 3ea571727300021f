/**
 * The compat entry point against the official `@anthropic-ai/claude-agent-sdk` 0.3.330, side by side:
 * the same scenarios, the same real claude 2.1.330 and the same scripted model. Compared: what each
 * yields to its caller (types, subtypes, order, fields; ids, uuids, durations and temporary paths
 * normalised), what each throws, and what reaches the CLI (argv, environment, the initialize request
 * and the answers to the CLI's control requests — recorded by a wrapper script).
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as official from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as compat from "../../src/compat/claude-agent-sdk/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { type FakeAnthropicServer, type ScriptedTurn, startFakeAnthropic } from "../../src/testing/index.js";
import { eventually } from "../lifecycle/support/processes.js";

type Sdk = typeof compat;
const SDKS: [string, Sdk][] = [
  ["official", official as unknown as Sdk],
  ["compat", compat],
];

const realClaude = join(
  dirname(createRequire(import.meta.url).resolve("@anthropic-ai/claude-code/package.json")),
  "..",
  "claude-code-linux-x64",
  "claude",
);

let scratch: string;
let wrapper: string;
let argvLog: string;
let stdinLog: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "cas-claude-compat-"));
  argvLog = join(scratch, "argv.log");
  stdinLog = join(scratch, "stdin.log");
  wrapper = join(scratch, "claude");
  // A repository of its own: the CLI tells the model whether the workspace is in one.
  spawnSync("git", ["init", "-q", scratch]);
  // Records argv, a few variables and everything written to the CLI's stdin, then becomes the real claude.
  writeFileSync(
    wrapper,
    [
      "#!/bin/bash",
      `{ printf 'ARGV'; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n';`,
      `  printf 'ENV\\t%s\\t%s\\t%s\\n' "$CLAUDE_CODE_ENTRYPOINT" "\${CAS_COMPAT_PROBE-unset}" "\${NODE_OPTIONS-unset}"; } >> ${JSON.stringify(argvLog)}`,
      `exec ${JSON.stringify(realClaude)} "$@" < <(tee -a ${JSON.stringify(stdinLog)})`,
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
  // Present in this process, absent from `env`: neither SDK may pass it on (env replaces the environment).
  process.env.CAS_COMPAT_PROBE = "leaked";
});

afterAll(() => {
  delete process.env.CAS_COMPAT_PROBE;
  rmSync(scratch, { recursive: true, force: true });
});

const TIMING_KEY = /(^|_)(ms|duration|ttft)|_ms$|Ms$|^duration|_at$|timestamp/i;

/** Replaces what differs from run to run: ids, uuids, durations, temporary paths, ports. */
function normalise(value: unknown): unknown {
  const text = JSON.stringify(value, (key, v) => (TIMING_KEY.test(key) && typeof v === "number" ? "<ms>" : v))
    .replace(/\/[^"\s]*cas-claude-compat-[^"/\s]+\/sdk-[^"/\s]+/g, "<cwd>")
    .replace(/\/[^"\s]*cas-claude-compat-[^"/\s]+/g, "<scratch>")
    .replace(/\/[^"\s]*claude-test-home-[^"/\s]+/g, "<home>")
    .replace(/spares\/spare-[^"/\s]+/g, "spares/spare-<id>")
    .replace(/-tmp-[^"/\s]*cas-claude-compat-[^"/\s]+-sdk-[^"/\s]+/g, "-<cwd>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/\b(msg|toolu|req|srvtoolu)_[A-Za-z0-9]+/g, "$1_<id>")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
    .replace(/hook_\d+/g, "hook_<n>")
    .replace(/\\?"device_id\\?":\\?"[0-9a-f]{64}/g, "<device>")
    .replace(/cc-socks\/\d+\.sock/g, "cc-socks/<pid>.sock")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
  return JSON.parse(text);
}

interface Run {
  /** What the SDK yielded, then `{ thrown }` if iteration threw. */
  yielded: unknown[];
  extra: unknown;
  argv: string[][];
  env: string[][];
  /** Lines written to the CLI's stdin (initialize request, prompts, control answers). */
  stdin: Record<string, unknown>[];
  /** The request bodies the scripted model received (system prompt, tools, messages). */
  model: unknown[];
}

interface Ctx {
  sdk: Sdk;
  api: FakeAnthropicServer;
  cwd: string;
  /** The options both SDKs get: the wrapper as executable, the scripted model's environment. */
  base: { pathToClaudeCodeExecutable: string; env: Record<string, string>; cwd: string };
}

/** Runs `body` with each SDK against its own fresh scripted model; returns both runs. */
async function sideBySide(
  turns: ScriptedTurn[],
  body: (ctx: Ctx, yielded: unknown[]) => Promise<unknown>,
): Promise<Record<"official" | "compat", Run>> {
  const out: Partial<Record<"official" | "compat", Run>> = {};
  for (const [name, sdk] of SDKS) {
    rmSync(argvLog, { force: true });
    rmSync(stdinLog, { force: true });
    const api = await startFakeAnthropic({ turns });
    // Same-length names: the workspace path reaches the model (and its token counts).
    const cwd = mkdtempSync(join(scratch, "sdk-"));
    const yielded: unknown[] = [];
    let extra: unknown;
    let model: unknown[] = [];
    try {
      const base = { pathToClaudeCodeExecutable: wrapper, env: api.env(), cwd };
      try {
        extra = await body({ sdk, api, cwd, base }, yielded);
      } catch (error) {
        yielded.push({ thrown: (error as Error).message, name: (error as Error).name });
      }
      model = api.turnRequests.map((r) => r.body);
    } finally {
      await api.close();
    }
    const lines = existsSync(argvLog) ? readFileSync(argvLog, "utf8").trim().split("\n") : [];
    const stdin = existsSync(stdinLog)
      ? readFileSync(stdinLog, "utf8")
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
    out[name as "official" | "compat"] = {
      yielded,
      extra,
      argv: lines.filter((l) => l.startsWith("ARGV")).map((l) => l.split("\t").slice(1)),
      env: lines.filter((l) => l.startsWith("ENV")).map((l) => l.split("\t").slice(1)),
      stdin,
      model,
    };
  }
  expect(liveGroupCount()).toBe(0);
  return out as Record<"official" | "compat", Run>;
}

async function drain(q: AsyncIterable<unknown>, into: unknown[]): Promise<void> {
  for await (const m of q) into.push(m);
}

function dump(label: string, pair: Record<string, Run>) {
  const dir = process.env.CAS_COMPAT_DUMP;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${label}.json`), JSON.stringify(normalise(pair), null, 1));
}

function withoutKnownArgvDifferences(argv: string[]): string[] {
  return argv.filter((a) => !isSdkOnlyMcpConfig(a));
}

/** This engine names in-process servers in `--mcp-config`; the official SDK only in the initialize request. */
function isSdkOnlyMcpConfig(pair: string): boolean {
  if (!pair.startsWith("--mcp-config ")) return false;
  const servers = Object.values(
    (JSON.parse(pair.slice("--mcp-config ".length)) as { mcpServers: object }).mcpServers,
  );
  return servers.every((s) => (s as { type?: string }).type === "sdk");
}

/**
 * The MCP handshake of an in-process server (initialize, initialized, tools/list): the official SDK
 * answers it ahead of time inside the initialize request, this engine when the CLI asks.
 */
function isMcpHandshakeAnswer(line: Record<string, unknown>): boolean {
  const answer = (line.response as { response?: { mcp_response?: { result?: Record<string, unknown> } } })
    ?.response?.mcp_response;
  if (!answer) return false;
  const result = answer.result ?? {};
  return "protocolVersion" in result || "tools" in result || Object.keys(result).length === 0;
}

/**
 * argv as the CLI reads it: `--flag=value` and `--flag value` are the same, and so is any order of
 * the flags; each flag is kept with its value.
 */
function canonicalArgv(argv: string[]): string[] {
  const tokens = argv.flatMap((a) => {
    const m = /^(--[A-Za-z-]+)=(.*)$/s.exec(a);
    return m ? [m[1]!, m[2]!] : [a];
  });
  const pairs: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const value = tokens[i + 1];
    if (value !== undefined && !value.startsWith("--")) {
      pairs.push(`${tokens[i]} ${value}`);
      i++;
    } else pairs.push(tokens[i]!);
  }
  return pairs.sort();
}

/** Lines the SDK wrote to the CLI other than the initialize request (prompts, control answers). */
function afterInitialize(stdin: Record<string, unknown>[]): unknown[] {
  return stdin
    .filter(
      (l) => !(l.type === "control_request" && (l.request as { subtype?: string }).subtype === "initialize"),
    )
    .filter((l) => !isMcpHandshakeAnswer(l))
    .map((l) => {
      if (l.type === "control_request") return { type: l.type, request: l.request };
      if (l.type !== "control_response") return l;
      const { request_id: _id, ...response } = l.response as Record<string, unknown>;
      return { type: l.type, response };
    });
}

/** The initialize request without its id. */
function initializeOf(stdin: Record<string, unknown>[]): unknown {
  return stdin.find(
    (l) => l.type === "control_request" && (l.request as { subtype?: string }).subtype === "initialize",
  )?.request;
}

/**
 * Deliberate difference: this engine sends `managedSettings` in the initialize request
 * (`--managed-settings-in-initialize`, which needs `--await-initialize`), never as
 * `--managed-settings <json>` on argv, which any local user can read. Rewritten here into the
 * official SDK's shape (the CLI applies both the same way: test/e2e/claude-settings.test.ts).
 */
function withManagedSettingsOnArgv(run: Run, official: Run): Run {
  const init = run.stdin.find(
    (l) => l.type === "control_request" && (l.request as { subtype?: string }).subtype === "initialize",
  );
  const { managedSettings, ...request } = (init?.request ?? {}) as Record<string, unknown>;
  if (init === undefined || managedSettings === undefined) return run;
  return {
    ...run,
    argv: run.argv.map((argv, i) => {
      if (!argv.includes("--managed-settings-in-initialize")) return argv;
      const awaits = official.argv[i]?.includes("--await-initialize") ?? false;
      const rest = argv.filter(
        (a) => a !== "--managed-settings-in-initialize" && (awaits || a !== "--await-initialize"),
      );
      return [...rest, "--managed-settings", JSON.stringify(managedSettings)];
    }),
    stdin: run.stdin.map((l) => (l === init ? { ...l, request } : l)),
  };
}

/** Asserts both SDKs yielded, threw, sent and returned the same, up to the documented differences. */
function expectSame(pair: Record<"official" | "compat", Run>) {
  const o = normalise(pair.official) as Run;
  const c = withManagedSettingsOnArgv(normalise(pair.compat) as Run, o);
  expect(c.yielded).toEqual(o.yielded);
  expect(c.extra).toEqual(o.extra);
  expect(c.model).toEqual(o.model);
  expect(c.env).toEqual(o.env);
  expect(c.argv.map((a) => withoutKnownArgvDifferences(canonicalArgv(a)))).toEqual(o.argv.map(canonicalArgv));
  expect(afterInitialize(c.stdin)).toEqual(afterInitialize(o.stdin));
  expect(withoutManifests(initializeOf(c.stdin))).toEqual(withoutManifests(initializeOf(o.stdin)));
}

/**
 * The initialize request without `sdkMcpServerManifests`: the official SDK runs in-process servers'
 * MCP handshake ahead of time and sends the answers there; this engine answers when the CLI asks.
 */
function withoutManifests(request: unknown): unknown {
  const { sdkMcpServerManifests: _m, ...rest } = (request ?? {}) as Record<string, unknown>;
  return rest;
}

function types(run: Run): string[] {
  return run.yielded.map((m) => {
    const x = m as { type?: string; subtype?: string; thrown?: string };
    return x.thrown !== undefined ? "thrown" : `${x.type}${x.subtype ? `/${x.subtype}` : ""}`;
  });
}

/** A command the CLI does not auto-approve as read-only, so the permission callback is asked. */
const BASH_ECHO: ScriptedTurn = {
  toolUse: { name: "Bash", input: { command: "touch made-by-tool", description: "touch" } },
};

describe("compat/claude-agent-sdk vs @anthropic-ai/claude-agent-sdk 0.3.330, on claude 2.1.330", () => {
  it("a text answer: messages, argv, environment (env replaces process.env), initialize, prompt line", async () => {
    const pair = await sideBySide([{ text: "hello there" }], ({ sdk, base }, y) =>
      drain(sdk.query({ prompt: "say hi", options: { ...base } }), y),
    );
    dump("text", pair);
    expectSame(pair);
    expect(types(pair.compat)).toEqual(["system/init", "assistant", "result/success"]);
    expect(pair.compat.env).toEqual([["sdk-ts", "unset", "unset"]]);
    expect(initializeOf(pair.official.stdin)).toEqual({ subtype: "initialize", systemPrompt: [""] });
    expect(initializeOf(pair.compat.stdin)).toEqual({ subtype: "initialize", systemPrompt: [""] });
  });

  it("resume of a session the CLI does not have: its error result, then the official error (a string and a streamed prompt)", async () => {
    const missing = "0b6f1a4e-2b7c-4c1e-9a58-7d9f3c2e1a00";
    for (const streamed of [false, true]) {
      const pair = await sideBySide([{ text: "never asked" }], ({ sdk, base }, y) => {
        const prompt = streamed
          ? (async function* () {
              yield {
                type: "user" as const,
                message: { role: "user" as const, content: "hi" },
                parent_tool_use_id: null,
                session_id: "",
              };
            })()
          : "hi";
        return drain(sdk.query({ prompt, options: { ...base, resume: missing } }), y);
      });
      const o = normalise(pair.official) as Run;
      const c = normalise(pair.compat) as Run;
      expect(c.yielded).toEqual(o.yielded);
      expect(types(pair.compat)).toEqual(["result/error_during_execution", "thrown"]);
      expect(pair.compat.yielded.at(-1)).toMatchObject({
        thrown: `Claude Code returned an error result: No conversation found with session ID: ${missing}`,
      });
      expect(pair.compat.model).toEqual([]);
    }
  });

  it("startup(): the handshake before the prompt, then query() on the warm process; close() of an unused one", async () => {
    const pair = await sideBySide([{ text: "warm hello" }], async ({ sdk, api, base }, y) => {
      const warm = await sdk.startup({ options: { ...base } });
      // Started and initialized, the model not asked yet.
      const before = {
        modelRequests: api.turnRequests.length,
        argvLines: readFileSync(argvLog, "utf8").split("\n").length - 1,
      };
      await drain(warm.query("say hi"), y);
      const unused = await sdk.startup({ options: { ...base } });
      unused.close();
      // close() returns at once (void, as the official one); the process ends soon after.
      return { ...before, closed: await eventually(() => liveGroupCount() === 0, 10_000) };
    });
    dump("startup", pair);
    expectSame(pair);
    expect(pair.compat.extra).toEqual({ modelRequests: 0, argvLines: 2, closed: true });
    expect(types(pair.compat)).toEqual(["system/init", "assistant", "result/success"]);
    // Two processes each: the one that answered, and the unused one, closed.
    expect(pair.compat.argv).toHaveLength(2);
  });

  it("prewarm(): a spare parked before its folder is known, claimed into it; a refused claim; close() of an unclaimed one", async () => {
    const pair = await sideBySide([{ text: "claimed hello" }], async ({ sdk, api, base }, y) => {
      const { cwd, ...hostLevel } = base;
      const spare = await sdk.prewarm({ options: hostLevel });
      const parked = { modelRequests: api.turnRequests.length };
      await drain(spare.claim({ prompt: "say hi", options: { cwd, title: "differential" } }), y);
      const claimed = await spare.claimed;
      await spare.exited;

      const refused = await sdk.prewarm({ options: hostLevel });
      const refusedRun: unknown[] = [];
      await drain(
        refused.claim({ prompt: "never runs", options: { cwd: join(cwd, "missing") } }),
        refusedRun,
      ).catch((error: Error) => refusedRun.push({ thrown: error.message }));
      const refusal = await refused.claimed.then(
        () => "claimed",
        (error: Error) => error.message.split(":")[0],
      );
      await refused.exited;

      const unused = await sdk.prewarm({ options: hostLevel });
      unused.close();
      const closed = await unused.claimed.then(
        () => "claimed",
        (error: Error) => error.message.split(":")[0],
      );
      await unused.exited;
      return {
        ...parked,
        claimedInto: claimed.cwd === realpathSync(cwd),
        sessionId: typeof claimed.sessionId,
        sdkMcpSettled: claimed.sdkMcpSettled,
        refusedRun,
        refusal,
        closed,
        left: await eventually(() => liveGroupCount() === 0, 10_000),
      };
    });
    dump("prewarm", pair);
    expectSame(pair);
    expect(pair.compat.extra).toMatchObject({
      modelRequests: 0,
      claimedInto: true,
      sessionId: "string",
      refusal: "cwd_not_found",
      closed: "spare_closed",
      left: true,
    });
    // The parked process's frames (ui_invalidate) come first, as with the official SDK.
    expect(types(pair.compat).slice(-4)).toEqual([
      "system/session_title_changed",
      "system/init",
      "assistant",
      "result/success",
    ]);
    expect(pair.compat.argv.every((argv) => argv.includes("--await-claim"))).toBe(true);
  });

  it("canUseTool allow: the callback's arguments, the control answer, the tool run", async () => {
    const pair = await sideBySide([BASH_ECHO, { text: "ran it" }], async ({ sdk, base }, y) => {
      const calls: unknown[] = [];
      await drain(
        sdk.query({
          prompt: "run echo",
          options: {
            ...base,
            canUseTool: async (name, input, options) => {
              const { signal, ...rest } = options;
              calls.push({ name, input, rest, signal: signal instanceof AbortSignal });
              return { behavior: "allow", updatedInput: input };
            },
          },
        }),
        y,
      );
      return calls;
    });
    dump("allow", pair);
    expectSame(pair);
    expect(types(pair.compat)).toContain("user");
  });

  it("canUseTool deny: the model sees the message", async () => {
    const pair = await sideBySide([BASH_ECHO, { text: "ok, not running it" }], ({ sdk, base }, y) =>
      drain(
        sdk.query({
          prompt: "run echo",
          options: { ...base, canUseTool: async () => ({ behavior: "deny", message: "not today" }) },
        }),
        y,
      ),
    );
    dump("deny", pair);
    expectSame(pair);
    expect(JSON.stringify(pair.compat.model)).toContain("not today");
  });

  it("hooks: PreToolUse allows, PostToolUse adds context; the inputs each callback got", async () => {
    const pair = await sideBySide([BASH_ECHO, { text: "hooked" }], async ({ sdk, base }, y) => {
      const seen: unknown[] = [];
      await drain(
        sdk.query({
          prompt: "run echo",
          options: {
            ...base,
            hooks: {
              PreToolUse: [
                {
                  matcher: "Bash",
                  hooks: [
                    async (input, toolUseID) => {
                      seen.push({ input, toolUseID });
                      return {
                        hookSpecificOutput: {
                          hookEventName: "PreToolUse",
                          permissionDecision: "allow",
                          permissionDecisionReason: "hook says yes",
                        },
                      };
                    },
                  ],
                },
              ],
              PostToolUse: [
                {
                  hooks: [
                    async (input) => {
                      seen.push({ input });
                      return {
                        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "post ctx" },
                      };
                    },
                  ],
                },
              ],
            },
          },
        }),
        y,
      );
      return seen;
    });
    dump("hooks", pair);
    expectSame(pair);
    expect(JSON.stringify(pair.compat.model)).toContain("post ctx");
  });

  it("an in-process MCP tool made with tool() and createSdkMcpServer()", async () => {
    const pair = await sideBySide(
      [{ toolUse: { name: "mcp__calc__add", input: { a: 2, b: 3 } } }, { text: "5" }],
      async ({ sdk, base }, y) => {
        const add = sdk.tool(
          "add",
          "Add two numbers",
          { a: z.number(), b: z.number() },
          async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
          { annotations: { readOnlyHint: true } },
        );
        const calc = sdk.createSdkMcpServer({ name: "calc", version: "1.0.0", tools: [add] });
        const q = sdk.query({
          prompt: "add 2 and 3",
          options: { ...base, mcpServers: { calc }, allowedTools: ["mcp__calc__add"] },
        });
        let status: unknown;
        for await (const m of q) {
          y.push(m);
          if (m.type === "result") status = await q.mcpServerStatus();
        }
        return status;
      },
    );
    dump("mcp", pair);
    expectSame(pair);
    expect(JSON.stringify(pair.compat.model)).toContain('"5"');
  });

  it("structured output (outputFormat)", async () => {
    const pair = await sideBySide(
      [{ toolUse: { name: "StructuredOutput", input: { answer: 4 } } }, { text: "" }],
      ({ sdk, base }, y) =>
        drain(
          sdk.query({
            prompt: "what is 2+2",
            options: {
              ...base,
              outputFormat: {
                type: "json_schema",
                schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] },
              },
            },
          }),
          y,
        ),
    );
    dump("structured", pair);
    expectSame(pair);
    expect(pair.compat.yielded.at(-1)).toMatchObject({ structured_output: { answer: 4 } });
  });

  it("interrupt() during a streamed answer", async () => {
    const pair = await sideBySide([{ stall: true, text: "thinking" }], async ({ sdk, base }, y) => {
      const q = sdk.query({ prompt: "take your time", options: { ...base, includePartialMessages: true } });
      let answer: unknown = "not called";
      for await (const m of q) {
        y.push(m);
        if (m.type === "stream_event" && answer === "not called") answer = await q.interrupt();
      }
      return answer;
    });
    dump("interrupt", pair);
    expectSame(pair);
  });

  it("resume: a second query continues the first session", async () => {
    const pair = await sideBySide(
      [{ text: "remember 42" }, { text: "it was 42" }],
      async ({ sdk, base }, y) => {
        let sessionId = "";
        for await (const m of sdk.query({ prompt: "remember 42", options: { ...base } })) {
          y.push(m);
          if (m.type === "result") sessionId = m.session_id;
        }
        await drain(sdk.query({ prompt: "what was it?", options: { ...base, resume: sessionId } }), y);
      },
    );
    dump("resume", pair);
    expectSame(pair);
    expect(pair.compat.argv[1]).toContain("--resume");
  });

  it("an API error: the error result is yielded, then iteration throws", async () => {
    const pair = await sideBySide(
      [{ error: { status: 400, message: "bad request from the scripted model" } }],
      ({ sdk, base }, y) => drain(sdk.query({ prompt: "fail", options: { ...base } }), y),
    );
    dump("api-error", pair);
    expectSame(pair);
    expect(types(pair.compat).at(-1)).toBe("thrown");
  });

  it("control methods before the first prompt: initialization data, models, account, MCP status, context usage, setModel, setPermissionMode, setMaxThinkingTokens, applyFlagSettings, reloadSkills", async () => {
    const pair = await sideBySide([{ text: "one" }], async ({ sdk, base }, y) => {
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      async function* prompts() {
        await gate;
        yield {
          type: "user" as const,
          message: { role: "user" as const, content: "hi" },
          parent_tool_use_id: null,
          session_id: "",
        };
      }
      const q = sdk.query({ prompt: prompts(), options: { ...base } });
      const init = await q.initializationResult();
      const answers = {
        commands: (await q.supportedCommands()).length === init.commands.length,
        models: await q.supportedModels(),
        agents: await q.supportedAgents(),
        account: await q.accountInfo(),
        mcp: await q.mcpServerStatus(),
        setModel: await q.setModel("claude-sonnet-4-5"),
        setPermissionMode: await q.setPermissionMode("acceptEdits"),
        setMaxThinkingTokens: await q.setMaxThinkingTokens(1024),
        contextUsage: await q.getContextUsage(),
        reloadSkills: await q.reloadSkills(),
        applyFlagSettings: await q.applyFlagSettings({ effortLevel: "high" }),
      };
      release();
      await drain(q, y);
      return answers;
    });
    dump("control", pair);
    expectSame(pair);
    expect(pair.compat.extra).toMatchObject({ commands: true, mcp: [] });
    expect(pair.compat.model).toMatchObject([{ model: "claude-sonnet-4-5" }]);
  });

  it("streamed input: two turns from an AsyncIterable of SDKUserMessage", async () => {
    const pair = await sideBySide(
      [{ text: "first answer" }, { text: "second answer" }],
      async ({ sdk, base }, y) => {
        let next!: () => void;
        const firstDone = new Promise<void>((r) => {
          next = r;
        });
        async function* prompts() {
          yield {
            type: "user" as const,
            message: { role: "user" as const, content: "one" },
            parent_tool_use_id: null,
            session_id: "",
          };
          await firstDone;
          yield {
            type: "user" as const,
            message: { role: "user" as const, content: [{ type: "text" as const, text: "two" }] },
            parent_tool_use_id: null,
            session_id: "",
          };
        }
        for await (const m of sdk.query({ prompt: prompts(), options: { ...base } })) {
          y.push(m);
          if (m.type === "result") next();
        }
      },
    );
    dump("streamed", pair);
    expectSame(pair);
    expect(types(pair.compat).filter((t) => t === "result/success")).toHaveLength(2);
  });

  it("no env option: the CLI inherits process.env, without NODE_OPTIONS", async () => {
    const pair = await sideBySide([{ text: "inherited" }], async ({ sdk, base }, y) => {
      const saved = { ...process.env };
      Object.assign(process.env, base.env, { NODE_OPTIONS: "--no-deprecation" });
      try {
        const { env: _env, ...options } = base;
        await drain(sdk.query({ prompt: "hi", options }), y);
      } finally {
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
        Object.assign(process.env, saved);
      }
    });
    dump("inherit", pair);
    expectSame(pair);
    expect(pair.compat.env).toEqual([["sdk-ts", "leaked", "unset"]]);
  });

  it("an aborted query (abortController): the same messages, then an error (ours a typed AbortError)", async () => {
    const pair = await sideBySide([{ stall: true, text: "thinking" }], async ({ sdk, base, api }, y) => {
      const abortController = new AbortController();
      const stalled = api
        .waitForRequest((r) => r.lastUserText === "stall")
        .then(() => abortController.abort());
      try {
        await drain(sdk.query({ prompt: "stall", options: { ...base, abortController } }), y);
      } finally {
        await stalled;
      }
    });
    dump("abort", pair);
    expect(normalise(pair.compat.yielded.slice(0, -1))).toEqual(
      normalise(pair.official.yielded.slice(0, -1)),
    );
    // Deliberate: a typed AbortError where the official SDK throws a plain Error.
    expect(pair.official.yielded.at(-1)).toEqual({
      thrown: "Claude Code process aborted by user",
      name: "Error",
    });
    expect(pair.compat.yielded.at(-1)).toMatchObject({ name: "AbortError" });
  });

  it("options: each reaches the CLI with the same effect (the same argv, initialize request and model requests)", async () => {
    const pair = await sideBySide([{ text: "ok" }], ({ sdk, base }, y) =>
      drain(
        sdk.query({
          prompt: "options",
          options: {
            ...base,
            model: "claude-sonnet-4-5",
            fallbackModel: "claude-haiku-4-5",
            maxTurns: 3,
            maxBudgetUsd: 5,
            effort: "high",
            thinking: { type: "enabled", budgetTokens: 2048 },
            allowedTools: ["Read", "Grep"],
            disallowedTools: ["WebFetch"],
            tools: ["Read", "Grep", "Bash"],
            additionalDirectories: [scratch],
            permissionMode: "acceptEdits",
            includePartialMessages: true,
            settingSources: ["project"],
            sessionId: "11111111-2222-4333-8444-555555555555",
            persistSession: false,
            strictMcpConfig: true,
            extraArgs: { "exclude-dynamic-system-prompt-sections": null },
            systemPrompt: { type: "preset", preset: "claude_code", append: "Be brief." },
          },
        }),
        y,
      ),
    );
    dump("options", pair);
    expectSame(pair);
  });

  it("options the initialize request carries (title, aliases, dialogs, prompts, thinking display, …)", async () => {
    const pair = await sideBySide([{ text: "ok" }], ({ sdk, base }, y) =>
      drain(
        sdk.query({
          prompt: "initialize options",
          options: {
            ...base,
            title: "A title",
            toolAliases: { Shell: "Bash" },
            planModeInstructions: "Plan carefully.",
            agentProgressSummaries: true,
            forwardSubagentText: true,
            perTaskStopAffordance: true,
            supportedDialogKinds: ["confirm"],
            onUserDialog: async () => ({ behavior: "cancelled" as const }),
            onElicitation: async () => ({ action: "decline" as const }),
            systemPrompt: ["You are terse.", "Answer in one word."],
            thinking: { type: "adaptive", display: "summarized" },
            toolConfig: { askUserQuestion: { previewFormat: "html" } },
            skills: ["pdf"],
            verbatimPrompts: true,
            managedSettings: { permissions: { deny: ["WebFetch"] } },
            settingSources: [],
          },
        }),
        y,
      ),
    );
    dump("initialize-options", pair);
    expectSame(pair);
    expect(initializeOf(pair.compat.stdin)).toMatchObject({
      title: "A title",
      systemPrompt: ["You are terse.", "Answer in one word."],
    });
  });

  it("setMcpServers() then streamInput() on a streaming query", async () => {
    const pair = await sideBySide(
      [{ text: "first answer" }, { text: "second answer" }],
      async ({ sdk, base }, y) => {
        let release!: () => void;
        const done = new Promise<void>((r) => {
          release = r;
        });
        const user = (text: string) => ({
          type: "user" as const,
          message: { role: "user" as const, content: text },
          parent_tool_use_id: null,
          session_id: "",
        });
        async function* first() {
          yield user("one");
          await done;
        }
        async function* second() {
          yield user("two");
        }
        const add = sdk.tool("add", "Add", { a: z.number() }, async ({ a }) => ({
          content: [{ type: "text", text: String(a) }],
        }));
        const calc = sdk.createSdkMcpServer({ name: "calc", version: "1.0.0", tools: [add] });
        const q = sdk.query({ prompt: first(), options: { ...base } });
        let changed: unknown;
        let results = 0;
        for await (const m of q) {
          y.push(m);
          if (m.type !== "result") continue;
          results++;
          if (results === 1) {
            changed = await q.setMcpServers({ calc });
            await q.streamInput(second());
          } else release();
        }
        return changed;
      },
    );
    dump("set-mcp-stream-input", pair);
    expectSame(pair);
    expect(pair.compat.extra).toEqual({ added: ["calc"], removed: [], errors: {} });
    expect(types(pair.compat).filter((t) => t === "result/success")).toHaveLength(2);
  });
});

describe("compat/claude-agent-sdk: deliberate differences and refusals", () => {
  it("control methods while handling a one-turn result work (the official SDK has closed the query by then)", async () => {
    const pair = await sideBySide([{ text: "one" }], async ({ sdk, base }, y) => {
      const q = sdk.query({ prompt: "hi", options: { ...base } });
      for await (const m of q) {
        y.push(m);
        if (m.type === "result") {
          const status = await q.mcpServerStatus();
          return status;
        }
      }
    });
    expect(pair.official.yielded.at(-1)).toMatchObject({ thrown: "Query closed before response received" });
    expect(pair.compat.extra).toEqual([]);
    expect(types(pair.compat)).toEqual(["system/init", "assistant", "result/success"]);
  });

  it("options this engine cannot honour fail at query(), naming each, before anything is spawned", () => {
    const call = () =>
      compat.query({
        prompt: "x",
        options: {
          executable: "bun",
          executableArgs: ["--smol"],
          noSuchOption: 1,
        } as never,
      });
    expect(call).toThrow(/executable: .*native binary/);
    expect(call).toThrow(/executableArgs: .*native binary/);
    expect(call).toThrow(/noSuchOption: not an option of @anthropic-ai\/claude-agent-sdk 0\.3\.330/);
    expect(call).toThrow(compat.UnsupportedOptionsError);
    expect(liveGroupCount()).toBe(0);
  });

  it("tool() refuses the tool-search metadata it cannot send", () => {
    expect(() => compat.tool("t", "d", {}, async () => ({ content: [] }), { alwaysLoad: true })).toThrow(
      /alwaysLoad are not implemented/,
    );
    expect(() => compat.createSdkMcpServer({ name: "s", instructions: "x" })).toThrow(
      /instructions: not implemented/,
    );
  });

  it("close() mid-turn ends iteration and leaves no process group", async () => {
    const api = await startFakeAnthropic({ turns: [{ stall: true, text: "thinking" }] });
    try {
      const q = compat.query({
        prompt: "stall",
        options: { pathToClaudeCodeExecutable: wrapper, env: api.env(), cwd: scratch },
      });
      const seen: string[] = [];
      const stalled = api.waitForRequest((r) => r.lastUserText === "stall").then(() => q.close());
      for await (const m of q) seen.push(m.type);
      await stalled;
      expect(seen).toContain("system");
      await expect.poll(() => liveGroupCount()).toBe(0);
    } finally {
      await api.close();
    }
  });
});
