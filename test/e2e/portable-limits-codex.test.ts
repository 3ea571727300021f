/**
 * The portable limits and the failure classes on Codex, which has no turn, token or time limit of
 * its own: the SDK enforces them (src/session/turn-guard.ts). Real `codex` against the fake model.
 */
import { describe, expect, it } from "vitest";
import { AgentSdkClient, query, TimeoutError } from "../../src/index.js";
import { createCodexHome, startFakeOpenAI } from "../../src/testing/index.js";
import { CODEX_CLI_VERSION, codexBed, runningCliProcesses } from "./codex-support.js";

describe(`portable limits on codex ${CODEX_CLI_VERSION}`, () => {
  it("maxTurns ends a codex exec run after the tool round it allows, as Claude's error_max_turns", async () => {
    await using bed = await codexBed([
      { execCommand: { cmd: "echo one" } },
      { execCommand: { cmd: "echo two" } },
      { text: "never reached" },
    ]);
    const turn = await query({
      prompt: "run things",
      options: bed.options({ backend: "codex", maxTurns: 1 }),
    }).collect();
    expect(turn.result).toMatchObject({
      subtype: "error_max_turns",
      isError: true,
      numTurns: 1,
      errorKind: null,
    });
    expect(turn.error).toMatch(/maximum number of turns \(1\)/);
    expect(runningCliProcesses()).toBe(0);
  });

  it("maxTurns on an app-server client: the turn ends error_max_turns and the next turn runs", async () => {
    // Whether codex asks again before the interrupt lands varies: answer by the prompt.
    const byPrompt = (req: { body: unknown }) =>
      JSON.stringify(req.body).includes("again")
        ? { text: "second answer" }
        : { execCommand: { cmd: "echo more" } };
    await using bed = await codexBed([{ execCommand: { cmd: "echo one" } }, byPrompt, byPrompt, byPrompt]);
    await using client = new AgentSdkClient(bed.options({ backend: "codex", maxTurns: 1 }));
    await client.connect();
    const first = await client.run("run things");
    expect(first.result).toMatchObject({ subtype: "error_max_turns", isError: true });
    const next = await client.run("again");
    expect(next.result).toMatchObject({ isError: false, result: "second answer" });
  });

  it("timeoutMs ends a stalled run with a TimeoutError naming the limit, the process group gone", async () => {
    await using bed = await codexBed([{ stall: true, text: "thinking" }]);
    const started = performance.now();
    const run = query({
      prompt: "hang",
      options: bed.options({ backend: "codex", timeoutMs: 1500 }),
    }).collect();
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ limit: "timeoutMs", timeoutMs: 1500 });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(runningCliProcesses()).toBe(0);
  });

  it("maxBudgetTokens: a turn that goes over it ends error_max_budget_tokens; the next one is stopped", async () => {
    await using bed = await codexBed([{ text: "first" }, { text: "second" }]);
    await using client = new AgentSdkClient(bed.options({ backend: "codex", maxBudgetTokens: 1 }));
    await client.connect();
    const first = await client.run("one");
    expect(first.result).toMatchObject({
      subtype: "error_max_budget_tokens",
      isError: true,
      errorKind: null,
    });
    const second = await client.run("two");
    expect(second.result).toMatchObject({ subtype: "error_max_budget_tokens", isError: true });
  });

  it("maxBudgetUsd is refused before spawn: Codex reports no cost", async () => {
    await using bed = await codexBed([]);
    await expect(
      query({ prompt: "x", options: bed.options({ backend: "codex", maxBudgetUsd: 1 } as never) }).collect(),
    ).rejects.toMatchObject({ name: "UnsupportedOptionsError", options: ["maxBudgetUsd"] });
  });
});

describe(`failure classes on codex ${CODEX_CLI_VERSION}`, () => {
  const cases: [string, object, string][] = [
    [
      "429 with retry-after",
      { error: { status: 429, retryAfter: 7, type: "rate_limit_error", code: "rate_limit_exceeded" } },
      "rate_limit",
    ],
    ["429 without retry-after", { error: { status: 429 } }, "rate_limit"],
    [
      "429 quota",
      {
        error: {
          status: 429,
          type: "insufficient_quota",
          code: "insufficient_quota",
          message: "You exceeded your current quota",
        },
      },
      "usage_limit",
    ],
    ["503", { error: { status: 503 } }, "overloaded"],
    ["500", { error: { status: 500 } }, "server_error"],
    ["401", { error: { status: 401, message: "Incorrect API key provided" } }, "authentication_failed"],
    ["400", { error: { status: 400, message: "bad field" } }, "invalid_request"],
    ["context", { failed: { code: "context_length_exceeded", message: "too long" } }, "context_too_long"],
  ];
  for (const [name, turn, kind] of cases) {
    it(`${name} → ${kind} (exec and app-server)`, async () => {
      await using bed = await codexBed([turn as never, turn as never]);
      const exec = await query({ prompt: "x", options: bed.options() }).collect();
      expect({ kind: exec.errorKind, isError: exec.result.isError, text: exec.error }).toMatchObject({
        kind,
        isError: true,
      });
      expect(exec.result.errorKind).toBe(kind);
      await using client = new AgentSdkClient(bed.options());
      await client.connect();
      const app = await client.run("x");
      expect({ kind: app.errorKind, text: app.error }).toMatchObject({ kind });
    });
  }

  it("connection refused → network", async () => {
    // A server that is gone: its port refuses connections.
    const gone = await startFakeOpenAI();
    const url = gone.url;
    await gone.close();
    const home = createCodexHome({ baseUrl: url });
    const turn = await query({ prompt: "x", options: { backend: "codex", env: home.env } }).collect();
    await home.cleanup();
    expect({ kind: turn.errorKind, text: turn.error }).toMatchObject({ kind: "network" });
  });
});
