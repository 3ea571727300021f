/**
 * The failure classes, the one result shape and timeoutMs on the real Claude Code CLI against the
 * fake Anthropic API (retries off: CLAUDE_CODE_MAX_RETRIES=0 in the test env).
 */
import { describe, expect, it } from "vitest";
import { AgentSdkClient, query, TimeoutError } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { createClaudeTestEnv, type ScriptedTurn, startFakeAnthropic } from "../../src/testing/index.js";
import { CLAUDE_CLI_VERSION, testBed } from "./support.js";

describe(`failure classes on claude ${CLAUDE_CLI_VERSION}`, () => {
  const cases: [string, ScriptedTurn, string][] = [
    ["429 with retry-after", { error: { status: 429, retryAfter: 7 } }, "rate_limit"],
    ["429 without retry-after", { error: { status: 429 } }, "rate_limit"],
    [
      "quota",
      {
        error: {
          status: 429,
          type: "rate_limit_error",
          message: "You have exceeded your usage limit for this plan",
        },
      },
      "usage_limit",
    ],
    ["529", { error: { status: 529 } }, "overloaded"],
    ["503", { error: { status: 503 } }, "overloaded"],
    ["500", { error: { status: 500 } }, "server_error"],
    ["403", { error: { status: 403 } }, "authentication_failed"],
    ["400", { error: { status: 400, message: "bad field" } }, "invalid_request"],
    [
      "prompt too long",
      { error: { status: 400, message: "prompt is too long: 300000 tokens > 200000 maximum" } },
      "context_too_long",
    ],
  ];
  for (const [name, turn, kind] of cases) {
    it(`${name} → ${kind}`, async () => {
      await using bed = await testBed([turn, turn, turn]);
      const collected = await query({ prompt: "x", options: bed.options() }).collect();
      expect({ kind: collected.errorKind, text: collected.error }).toMatchObject({ kind });
      expect(collected.result).toMatchObject({ isError: true, errorKind: kind, retryAfterMs: null });
    });
  }

  it("connection refused → network", async () => {
    const gone = await startFakeAnthropic();
    const url = gone.url;
    await gone.close();
    const env = createClaudeTestEnv(url);
    try {
      const collected = await query({ prompt: "x", options: { env: env.env } }).collect();
      expect({ kind: collected.errorKind, text: collected.error }).toMatchObject({ kind: "network" });
    } finally {
      await env.cleanup();
    }
  });
});

describe(`the one result shape and timeoutMs on claude ${CLAUDE_CLI_VERSION}`, () => {
  it("a success carries every field (null where unknown) and the session's running cost", async () => {
    await using bed = await testBed([{ text: "hello" }]);
    const { result } = await query({ prompt: "x", options: bed.options() }).collect();
    for (const field of [
      "sessionCostUsd",
      "modelUsage",
      "permissionDenials",
      "stopReason",
      "terminalReason",
      "apiErrorStatus",
      "errorKind",
      "retryAfterMs",
      "resetsAt",
    ]) {
      expect(result).toHaveProperty(field);
    }
    expect(result.errorKind).toBeNull();
  });

  it("timeoutMs ends a stalled turn with a TimeoutError, the process group gone", async () => {
    await using bed = await testBed([{ stall: true, text: "thinking" }]);
    const error = await query({ prompt: "x", options: bed.options({ timeoutMs: 2000 }) })
      .collect()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ limit: "timeoutMs", timeoutMs: 2000 });
    expect(liveGroupCount()).toBe(0);
  });

  it("maxBudgetTokens (SDK-enforced on Claude): the turn over it ends error_max_budget_tokens; the next one is stopped", async () => {
    await using bed = await testBed([{ text: "first" }, { text: "second" }, { text: "third" }]);
    await using client = new AgentSdkClient(bed.options({ maxBudgetTokens: 1 }));
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
});
