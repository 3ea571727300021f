/**
 * Security properties of how the CLI is started: argv only (no shell ever sees the prompt or an
 * option), an environment that can be replaced rather than inherited, permissions never bypassed
 * unless asked, and in-process MCP tool inputs validated before the handler runs.
 *
 * Shell injection is probed with harmless canaries (`touch <file>`), never with destructive
 * commands: if a shell ever interpreted them, a canary file would appear.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentOptions,
  AgentSdkClient,
  createSdkMcpServer,
  type Message,
  ProcessError,
  query,
  tool,
} from "../../src/index.js";
import { CLAUDE_CLI_VERSION, testBed } from "../e2e/support.js";
import { type FakeRun, LIFECYCLE_BACKENDS, NOT_POSIX } from "./support/backends.js";
import { isAlive, liveChildren, readPids, survivors } from "./support/processes.js";

interface FakeRecord {
  argv: string[];
  envKeys: string[];
  users: unknown[];
  /** Settings received other than in argv (Codex app-server: the thread/start params). */
  settings?: Record<string, unknown> | null;
}

const PARENT_ONLY = "CAS_LIFECYCLE_PARENT_ONLY_VAR";

async function drain(messages: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

describe.skipIf(NOT_POSIX).each(LIFECYCLE_BACKENDS)("security: $name", (backend) => {
  let root: string;
  let cases = 0;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), `cas-security-${backend.name}-`));
    process.env[PARENT_ONLY] = "inherited";
  });
  afterAll(() => {
    delete process.env[PARENT_ONLY];
    rmSync(root, { recursive: true, force: true });
  });

  function newRun(): FakeRun {
    const dir = join(root, `case-${++cases}`);
    mkdirSync(dir);
    return { dir, pidsFile: join(dir, "pids.json"), recordFile: join(dir, "record.json") };
  }

  async function runAndRecord(extra: AgentOptions, prompt = "hi"): Promise<FakeRecord> {
    const run = newRun();
    const messages = await drain(query({ prompt, options: backend.fake("ok", run, {}, extra) }));
    expect(messages.some((m) => m.type === "result")).toBe(true);
    expect(await survivors(readPids(run.pidsFile))).toEqual([]);
    return JSON.parse(readFileSync(run.recordFile, "utf8")) as FakeRecord;
  }

  it("argv only: shell metacharacters in the prompt and in options reach the CLI byte for byte, and nothing runs", async () => {
    const canaries = join(root, "canaries");
    mkdirSync(canaries);
    const touch = (name: string) => `touch ${join(canaries, name)}`;
    const prompt = [
      `$(${touch("dollar-paren")})`,
      `\`${touch("backtick")}\``,
      `; ${touch("semicolon")}`,
      `| ${touch("pipe")}`,
      `&& ${touch("and")} || ${touch("or")}`,
      `> ${join(canaries, "redirect")} < /dev/null`,
      `'single' "double" \\"escaped\\" \\\\ trailing backslash \\`,
      "line1\nline2\r\nline3\ttab\vvtab\fformfeed",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell expansion is the point.
      "${HOME} $PATH %s %n {} [] * ? ~ ! # -- --dangerously-skip-permissions",
      "unicode: é ü ß 中文 العربية 🚀 👩‍👩‍👧 \u200b zero-width \u202e RTL override \uFEFF bom",
      // An argv element is a C string: a NUL cannot travel there (see the NUL case below).
      ...(backend.promptVia === "stdin" ? ["nul:\u0000:end"] : []),
    ].join("\n");
    const first = `$(${touch("argv-first")})`;
    const second = `\`${touch("argv-second")}\`; ${touch("argv-second-2")}\n"quoted" 'single' 🚀`;

    const record = await runAndRecord(backend.argvOptions(first, second), prompt);

    expect(record.users).toHaveLength(1);
    const received = record.users[0] as string;
    expect(Buffer.from(received, "utf8").equals(Buffer.from(prompt, "utf8"))).toBe(true);
    expect(record.argv).toContain(first);
    expect(record.argv).toContain(second);
    if (backend.promptVia === "stdin") {
      // The prompt went over stdin, not argv.
      expect(record.argv.some((arg) => arg.includes("dollar-paren"))).toBe(false);
    } else {
      // The prompt is one argv element, the last, after `--`.
      expect(record.argv.slice(-2)).toEqual(["--", prompt]);
      expect(record.argv.filter((arg) => arg.includes("dollar-paren"))).toEqual([prompt]);
    }
    expect(readdirSync(canaries)).toEqual([]);
  });

  it("a prompt that looks like flags is the prompt, never a flag", async () => {
    const prompt = "--help -v --version --dangerously-skip-permissions --force --yolo -- -rf /";
    const record = await runAndRecord({}, prompt);
    expect(record.users).toEqual([prompt]);
    if (backend.promptVia === "argv") expect(record.argv.slice(-2)).toEqual(["--", prompt]);
    for (const flag of ["--help", "-v", "--version", "--force", "--yolo", "-rf"]) {
      expect(record.argv).not.toContain(flag);
    }
  });

  it("a prompt with a NUL byte, which argv cannot carry, fails before anything is spawned", async (ctx) => {
    if (backend.promptVia !== "argv") return ctx.skip("the prompt travels on stdin: NUL is covered above");
    const run = newRun();
    const outcome = await drain(
      query({ prompt: "before\u0000after", options: backend.fake("ok", run, {}, {}) }),
    ).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(ProcessError);
    expect((outcome as ProcessError).exitCode).toBeNull();
    // The error names the argument; the prompt itself is not repeated in it.
    expect((outcome as ProcessError).message).toMatch(/argument \d+ of \d+ contains a NUL byte/);
    expect((outcome as ProcessError).message).not.toContain("before");
    expect(readPids(run.pidsFile)).toBeUndefined();
    expect(liveChildren()).toEqual([]);
  });

  it("inheritEnv: false: the CLI sees only the caller's env and the SDK's own variables", async () => {
    const ours = { CAS_ONLY_THIS: "1", ANOTHER: "two words; $(and shell) `chars`" };
    const run = newRun();
    const options = backend.fake("ok", run, {}, { inheritEnv: false, env: ours });
    await drain(query({ prompt: "hi", options }));
    const record = JSON.parse(readFileSync(run.recordFile, "utf8")) as FakeRecord;
    const expected = [...Object.keys(options.env ?? {}), ...backend.sdkEnvKeys].sort();
    expect(record.envKeys).toEqual([...new Set(expected)]);
    expect(record.envKeys).not.toContain(PARENT_ONLY);
    expect(record.envKeys).not.toContain("PATH");
    expect(record.envKeys).not.toContain("HOME");
  });

  it("by default the environment is inherited, and `env: { X: undefined }` removes X", async () => {
    expect((await runAndRecord({})).envKeys).toContain(PARENT_ONLY);
    expect((await runAndRecord({ env: { [PARENT_ONLY]: undefined } })).envKeys).not.toContain(PARENT_ONLY);
  });

  it("permissions are never bypassed by default, with or without canUseTool", async () => {
    const allow = { canUseTool: async () => ({ behavior: "allow" as const }) };
    const withCallback = backend.callbacks?.supported.includes("canUseTool") ? [allow] : [];
    for (const extra of [{}, ...withCallback]) {
      const { argv, settings } = await runAndRecord(extra);
      const seen = [...argv, ...Object.values(settings ?? {}).map((value) => String(value))];
      for (const forbidden of backend.permissions.neverByDefault) expect(seen).not.toContain(forbidden);
    }
    // Only when asked for, explicitly.
    const { argv } = await runAndRecord(backend.permissions.bypass);
    const at = argv.indexOf(backend.permissions.bypassArgs[0] ?? "");
    expect(argv.slice(at, at + backend.permissions.bypassArgs.length)).toEqual(
      backend.permissions.bypassArgs,
    );
  });

  it.skipIf(!backend.callbacks?.supported.includes("mcpTool"))(
    "MCP tool input that fails its schema is rejected before the handler runs",
    async () => {
      const callbacks = backend.callbacks!;
      const calls: unknown[] = [];
      const calc = createSdkMcpServer({
        name: "calc",
        tools: [
          tool("add", "Adds", { a: z.number(), b: z.number() }, async ({ a, b }) => {
            calls.push({ a, b });
            return { content: [{ type: "text", text: String(a + b) }] };
          }),
        ],
      });
      const run = newRun();
      const client = new AgentSdkClient(backend.fake("callback", run, {}, { mcpServers: { calc } }));
      await client.connect();
      const ask = async (input: object) => {
        await client.query(callbacks.trigger("mcpTool", { server: "calc", tool: "add", input }));
        const messages: Message[] = [];
        for await (const m of client.receiveResponse()) {
          messages.push(m);
          if (m.type === "result") return callbacks.answer("mcpTool", m.result ?? "", messages);
        }
        return undefined;
      };
      expect(await ask({ a: "two", b: 3 })).toEqual({
        kind: "ok",
        value: {
          isError: true,
          content: [{ type: "text", text: expect.stringContaining("Input validation error") }],
        },
      });
      expect(calls).toEqual([]);
      expect(await ask({ a: 2, b: 3 })).toEqual({
        kind: "ok",
        value: { content: [{ type: "text", text: "5" }] },
      });
      expect(calls).toEqual([{ a: 2, b: 3 }]);
      await client.disconnect();
      expect(await survivors(readPids(run.pidsFile))).toEqual([]);
    },
  );
});

describe(`security against the real CLI (claude ${CLAUDE_CLI_VERSION})`, () => {
  it("a model call of an MCP tool with schema-invalid input never reaches the handler; the model gets the error", async () => {
    let toolResult = "";
    await using bed = await testBed([
      { toolUse: { name: "mcp__calc__add", input: { a: "two", b: 3 } } },
      (request) => {
        toolResult = JSON.stringify(request.body.messages.at(-1));
        return { text: "rejected, as it should be" };
      },
    ]);
    const calls: unknown[] = [];
    const calc = createSdkMcpServer({
      name: "calc",
      tools: [
        tool("add", "Adds", { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push({ a, b });
          return { content: [{ type: "text", text: String(a + b) }] };
        }),
      ],
    });
    const q = query({
      prompt: "add two and 3",
      options: bed.options({ mcpServers: { calc }, allowedTools: ["mcp__calc__add"] }),
    });
    let pid = 0;
    const messages: Message[] = [];
    for await (const m of q) {
      pid ||= q.pid ?? 0;
      messages.push(m);
    }
    expect(calls).toEqual([]);
    expect(toolResult).toContain('"is_error":true');
    expect(toolResult).toContain("Input validation error");
    expect(messages.find((m) => m.type === "result")).toMatchObject({ result: "rejected, as it should be" });
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
    expect(liveChildren()).toEqual([]);
  });
});
