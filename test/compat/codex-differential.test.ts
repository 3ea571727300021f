/**
 * The compat entry point against the official `@openai/codex-sdk` 0.163.0, side by side: the same
 * scenarios, the same real codex 0.169.0 and the same scripted model. Compared: what each yields to
 * its caller (event types, order, items, final response, usage, errors) and what reaches the CLI
 * (argv, the originator and API-key variables). Ids and temporary paths are normalised.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Codex as OfficialCodex } from "@openai/codex-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCodexCli } from "../../src/backends/codex/discovery.js";
import { Codex as CompatCodex } from "../../src/compat/codex-sdk/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { type FakeOpenAIServer, type ResponsesTurn, startFakeOpenAI } from "../../src/testing/index.js";

type AnyCodex = typeof OfficialCodex | typeof CompatCodex;
const SDKS: [string, AnyCodex][] = [
  ["official", OfficialCodex],
  ["compat", CompatCodex],
];

let scratch: string;
let wrapper: string;
let argvLog: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "cas-codex-compat-"));
  argvLog = join(scratch, "argv.log");
  wrapper = join(scratch, "codex");
  const real = findCodexCli().command;
  // Records each invocation's argv and the variables an SDK sets, then becomes the real codex.
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `{ printf 'ARGV'; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n';`,
      `  printf 'ENV\\t%s\\t%s\\t.\\n' "$CODEX_INTERNAL_ORIGINATOR_OVERRIDE" "$CODEX_API_KEY"; } >> ${JSON.stringify(argvLog)}`,
      `exec ${JSON.stringify(real)} "$@"`,
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Replaces what differs from run to run: ids, temporary paths. */
function normalise(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/\/[^"\s]*cas-codex-compat-[^"/\s]+\/sdk-[^"/\s]+/g, "<cwd>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
      .replace(/\/[^"\s]*codex-output-schema-[^"/\s]+\/schema\.json/g, "<schema>")
      .replace(/"id":"item_\d+"/g, '"id":"<item>"'),
  );
}

/** Runs `body` with each SDK against its own fresh scripted model; returns both outcomes and argv logs. */
async function sideBySide<T>(
  turns: ResponsesTurn[],
  body: (codex: InstanceType<AnyCodex>, api: FakeOpenAIServer, cwd: string) => Promise<T>,
  codexOptions: Record<string, unknown> = {},
) {
  const out: Record<
    string,
    { result: T | { error: string; name: string }; argv: string[][]; env: string[][] }
  > = {};
  for (const [name, Sdk] of SDKS) {
    rmSync(argvLog, { force: true });
    const api = await startFakeOpenAI({ turns });
    const home = api.codexHome();
    // Same-length names: the workspace path is part of what the model is sent (and its token count).
    const cwd = mkdtempSync(join(scratch, "sdk-"));
    try {
      const codex = new Sdk({ codexPathOverride: wrapper, env: home.env, ...codexOptions });
      let result: T | { error: string; name: string };
      try {
        result = await body(codex, api, cwd);
      } catch (error) {
        result = { error: (error as Error).message, name: error instanceof Error ? "Error" : typeof error };
      }
      const lines = readFileSync(argvLog, "utf8").trim().split("\n");
      out[name] = {
        result,
        argv: lines.filter((l) => l.startsWith("ARGV")).map((l) => l.split("\t").slice(1)),
        env: lines.filter((l) => l.startsWith("ENV")).map((l) => l.split("\t").slice(1, 3)),
      };
    } finally {
      await api.close();
    }
  }
  expect(liveGroupCount()).toBe(0);
  return { official: out.official!, compat: out.compat! };
}

/**
 * Deliberate difference: this engine passes a resumed thread's id after `--` (the official SDK's
 * `resume <id>` reads an id such as `--dangerously-bypass-approvals-and-sandbox` as that flag).
 */
function withoutIdSeparator(argv: string[]): string[] {
  const at = argv.indexOf("resume");
  return at >= 0 && argv[at + 1] === "--" ? [...argv.slice(0, at + 1), ...argv.slice(at + 2)] : argv;
}

/** A 1×1 PNG. */
const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** The content of the last `role: "user"` message of the model's last request (the prompt as the model sees it). */
function lastUserMessage(api: FakeOpenAIServer): unknown {
  const body = api.requests.at(-1)?.body as { input?: { role?: string; content?: unknown }[] } | undefined;
  return (body?.input ?? []).filter((item) => item.role === "user").at(-1)?.content;
}

function expectSame(pair: Awaited<ReturnType<typeof sideBySide>>) {
  expect(normalise(pair.compat.result)).toEqual(normalise(pair.official.result));
  expect(normalise(pair.compat.argv.map(withoutIdSeparator))).toEqual(normalise(pair.official.argv));
  expect(pair.compat.env).toEqual(pair.official.env);
}

describe("compat/codex-sdk vs @openai/codex-sdk 0.163.0, on codex 0.169.0", () => {
  it("run(): a text answer — items, finalResponse, usage; argv and originator", async () => {
    const pair = await sideBySide([{ text: "hello there" }], (codex, _api, cwd) =>
      codex.startThread({ workingDirectory: cwd, skipGitRepoCheck: true }).run("say hi"),
    );
    expectSame(pair);
    expect(pair.compat.result).toMatchObject({ finalResponse: "hello there" });
    expect(pair.compat.env).toEqual([["codex_sdk_ts", ""]]);
  });

  it("runStreamed(): a command run — every event, in order", async () => {
    const pair = await sideBySide(
      [{ execCommand: { cmd: "echo streamed" } }, { text: "ran it" }],
      async (codex, _api, cwd) => {
        const thread = codex.startThread({
          workingDirectory: cwd,
          skipGitRepoCheck: true,
          sandboxMode: "workspace-write",
        });
        const { events } = await thread.runStreamed("run echo");
        const seen: unknown[] = [];
        for await (const event of events) seen.push(event);
        return { seen, id: thread.id };
      },
    );
    expectSame(pair);
    const types = (pair.compat.result as { seen: { type: string }[] }).seen.map((e) => e.type);
    expect(types[0]).toBe("thread.started");
    expect(types.at(-1)).toBe("turn.completed");
  });

  it("two turns on one thread: the second resumes it by id", async () => {
    const pair = await sideBySide([{ text: "first" }, { text: "second" }], async (codex, _api, cwd) => {
      const thread = codex.startThread({ workingDirectory: cwd, skipGitRepoCheck: true });
      const a = await thread.run("one");
      const b = await thread.run([
        { type: "text", text: "two" },
        { type: "text", text: "lines" },
      ]);
      return { a: a.finalResponse, b: b.finalResponse, hasId: thread.id !== null };
    });
    expectSame(pair);
    expect(pair.compat.argv[1]).toContain("resume");
  });

  it("outputSchema: structured output as JSON text; the schema file passed by path", async () => {
    const schema = {
      type: "object",
      properties: { answer: { type: "number" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const pair = await sideBySide([{ text: '{"answer":42}' }], (codex, _api, cwd) =>
      codex
        .startThread({ workingDirectory: cwd, skipGitRepoCheck: true })
        .run("answer?", { outputSchema: schema }),
    );
    expectSame(pair);
    expect(pair.compat.argv[0]).toContain("--output-schema");
  });

  it("every thread option and client option reaches the CLI the same way", async () => {
    const pair = await sideBySide(
      [{ text: "ok" }],
      (codex, _api, cwd) =>
        codex
          .startThread({
            model: "gpt-5.5",
            sandboxMode: "workspace-write",
            workingDirectory: cwd,
            additionalDirectories: [scratch],
            skipGitRepoCheck: true,
            modelReasoningEffort: "low",
            networkAccessEnabled: false,
            webSearchMode: "disabled",
            approvalPolicy: "never",
          })
          .run("options"),
      {
        config: { tools: { web_search: false }, "odd key": "x y" },
        configOverrides: ["hide_agent_reasoning=true"],
        apiKey: "sk-compat",
      },
    );
    expectSame(pair);
    expect(pair.compat.env).toEqual([["codex_sdk_ts", "sk-compat"]]);
  });

  it("an image prompt: the model sees the same user message (text, the image, the user's own path)", async () => {
    const image = join(scratch, "pixel.png");
    writeFileSync(image, PNG_1X1);
    const requests: Record<string, unknown> = {};
    const pair = await sideBySide([{ text: "a pixel" }], async (codex, api, cwd) => {
      const thread = codex.startThread({ workingDirectory: cwd, skipGitRepoCheck: true });
      const turn = await thread.run([
        { type: "text", text: "What is in" },
        { type: "text", text: "this image?" },
        { type: "local_image", path: image },
      ]);
      requests[codex instanceof CompatCodex ? "compat" : "official"] = lastUserMessage(api);
      return turn.finalResponse;
    });
    expectSame(pair);
    expect(JSON.stringify(requests.official)).toContain("input_image");
    expect(JSON.stringify(requests.official)).toContain("What is in\\n\\nthis image?");
    expect(normalise(requests.compat)).toEqual(normalise(requests.official));
  });

  it("an image prompt with canUseTool (app-server): the model sees what the official exec run sends", async () => {
    const image = join(scratch, "pixel-2.png");
    writeFileSync(image, PNG_1X1);
    const seen: Record<string, unknown> = {};
    for (const [name, Sdk] of SDKS) {
      const api = await startFakeOpenAI({ turns: [{ text: "a pixel" }] });
      const cwd = mkdtempSync(join(scratch, "sdk-"));
      try {
        const codex = new Sdk({ codexPathOverride: wrapper, env: api.codexHome().env });
        const options = { workingDirectory: cwd, skipGitRepoCheck: true };
        const thread =
          name === "compat"
            ? (codex as InstanceType<typeof CompatCodex>).startThread({
                ...options,
                canUseTool: async () => ({ behavior: "allow" as const }),
              })
            : codex.startThread(options);
        await thread.run([
          { type: "text", text: "What is in this image?" },
          { type: "local_image", path: image },
        ]);
        seen[name] = lastUserMessage(api);
      } finally {
        await api.close();
      }
    }
    expect(JSON.stringify(seen.official)).toContain(image);
    expect(normalise(seen.compat)).toEqual(normalise(seen.official));
    expect(liveGroupCount()).toBe(0);
  });

  it("a failed turn: run() rejects with the CLI's error message", async () => {
    const pair = await sideBySide(
      [{ error: { status: 400, message: "bad request from the scripted model" } }],
      (codex, _api, cwd) => codex.startThread({ workingDirectory: cwd, skipGitRepoCheck: true }).run("fail"),
    );
    expect(pair.compat.result).toEqual(pair.official.result);
    expect(pair.compat.result).toMatchObject({ error: expect.stringContaining("bad request") });
  });

  it("a CLI that exits non-zero (outside a git repository): the same message, its stderr once", async () => {
    const pair = await sideBySide([{ text: "never asked" }], (codex, _api, cwd) =>
      codex.startThread({ workingDirectory: cwd }).run("outside a repository"),
    );
    expect(pair.compat.result).toEqual(pair.official.result);
    const message = (pair.compat.result as { error: string }).error;
    expect(message).toMatch(/^Codex Exec exited with code 1: /);
    expect(message).not.toContain("--- stderr (tail) ---");
  });

  it("an aborted turn: both reject with Node's AbortError shape (name, code ABORT_ERR, the signal's reason as cause); ours leaves no process behind", async () => {
    const pair = await sideBySide([{ stall: true, text: "thinking" }], async (codex, api, cwd) => {
      const controller = new AbortController();
      const thread = codex.startThread({ workingDirectory: cwd, skipGitRepoCheck: true });
      const stalled = api.waitForRequest((r) => r.lastUserText === "stall").then(() => controller.abort());
      try {
        await thread.run("stall", { signal: controller.signal });
        return "finished";
      } catch (error) {
        const e = error as Error & { code?: unknown };
        return {
          isError: e instanceof Error,
          name: e.name,
          code: e.code,
          causeIsReason: e.cause === controller.signal.reason,
        };
      } finally {
        await stalled;
      }
    });
    expect(pair.official.result).toEqual({
      isError: true,
      name: "AbortError",
      code: "ABORT_ERR",
      causeIsReason: true,
    });
    expect(pair.compat.result).toEqual(pair.official.result);
  });
});

describe("compat/codex-sdk additions", () => {
  it("thread.interrupt() ends a stalled turn (AbortError, process group gone); the next turn resumes the thread", async () => {
    const api = await startFakeOpenAI({ turns: [{ stall: true, text: "thinking" }, { text: "after" }] });
    const cwd = mkdtempSync(join(scratch, "sdk-"));
    try {
      const thread = new CompatCodex({ codexPathOverride: wrapper, env: api.codexHome().env }).startThread({
        workingDirectory: cwd,
        skipGitRepoCheck: true,
      });
      const stalled = api.waitForRequest((r) => r.lastUserText === "stall").then(() => thread.interrupt());
      await expect(thread.run("stall")).rejects.toMatchObject({ name: "AbortError" });
      await stalled;
      expect(liveGroupCount()).toBe(0);
      expect(thread.id).not.toBeNull();
      expect((await thread.run("again")).finalResponse).toBe("after");
    } finally {
      await api.close();
    }
  });

  it("canUseTool: approvals reach the callback (unified vocabulary); events keep exec's shapes", async () => {
    const api = await startFakeOpenAI({
      turns: [
        { execCommand: { cmd: "touch approved.txt" } },
        { text: "created" },
        { execCommand: { cmd: "touch denied.txt" } },
        { text: "refused" },
      ],
    });
    const cwd = mkdtempSync(join(scratch, "sdk-"));
    try {
      const asked: string[] = [];
      const thread = new CompatCodex({ codexPathOverride: wrapper, env: api.codexHome().env }).startThread({
        workingDirectory: cwd,
        skipGitRepoCheck: true,
        sandboxMode: "workspace-write",
        canUseTool: async (name, input) => {
          asked.push(`${name} ${String(input.command)}`);
          return String(input.command).includes("approved")
            ? { behavior: "allow" }
            : { behavior: "deny", message: "not that one" };
        },
      });
      const { events } = await thread.runStreamed("make a file");
      const seen: { type: string; item?: { type: string; status?: string } }[] = [];
      for await (const event of events) seen.push(event);
      expect(seen.map((e) => (e.item ? `${e.type}:${e.item.type}` : e.type))).toEqual([
        "thread.started",
        "turn.started",
        "item.started:command_execution",
        "item.completed:command_execution",
        "item.completed:agent_message",
        "turn.completed",
      ]);
      expect(existsSync(join(cwd, "approved.txt"))).toBe(true);
      const second = await thread.run("another");
      expect(second.finalResponse).toBe("refused");
      expect(second.items.find((i) => i.type === "command_execution")).toMatchObject({ status: "failed" });
      expect(existsSync(join(cwd, "denied.txt"))).toBe(false);
      expect(asked).toEqual(["Bash touch approved.txt", "Bash touch denied.txt"]);
      expect(liveGroupCount()).toBe(0);
    } finally {
      await api.close();
    }
  });
});
