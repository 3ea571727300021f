/**
 * The one result shape, the running cost and the failure classes every session applies
 * (src/session/turn-guard.ts, src/session/error-kind.ts), without a CLI.
 */
import { describe, expect, it } from "vitest";
import type { Message, ResultMessage } from "../../../src/messages.js";
import { classifyFailure } from "../../../src/session/error-kind.js";
import { SessionLifecycle } from "../../../src/session/session-lifecycle.js";

function result(fields: Partial<ResultMessage> = {}): ResultMessage {
  return {
    type: "result",
    subtype: "success",
    isError: false,
    durationMs: 1,
    durationApiMs: null,
    numTurns: null,
    sessionId: "s",
    totalCostUsd: null,
    tokenUsage: null,
    raw: { type: "result" },
    ...fields,
  };
}

function newLife(): SessionLifecycle {
  const life: SessionLifecycle = new SessionLifecycle(undefined, async () => life.end());
  return life;
}

async function delivered(life: SessionLifecycle, messages: Message[]): Promise<ResultMessage[]> {
  const sub = life.subscribe();
  for (const m of messages) {
    life.turnSent();
    life.push(m);
    if (m.type === "result") life.resultSeen();
  }
  life.end();
  const out: ResultMessage[] = [];
  for await (const m of sub) if (m.type === "result") out.push(m);
  return out;
}

describe("the result every backend delivers", () => {
  it("has every field of the one shape, null where the CLI said nothing", async () => {
    const life = newLife();
    const [r] = await delivered(life, [result()]);
    expect(r).toMatchObject({
      sessionCostUsd: null,
      modelUsage: null,
      permissionDenials: null,
      stopReason: null,
      terminalReason: null,
      apiErrorStatus: null,
      errorKind: null,
      retryAfterMs: null,
      resetsAt: null,
    });
  });

  it("sessionCostUsd is the running total of the turn costs; null from the first unknown cost on", async () => {
    const life = newLife();
    const out = await delivered(life, [
      result({ totalCostUsd: 0.1 }),
      result({ totalCostUsd: 0.2 }),
      result({ totalCostUsd: null }),
      result({ totalCostUsd: 0.1 }),
    ]);
    expect(out.map((r) => [r.totalCostUsd, r.sessionCostUsd])).toEqual([
      [0.1, 0.1],
      [0.2, 0.3],
      [null, null],
      [0.1, null],
    ]);
  });

  it("a backend's own running total (Claude's) is kept", async () => {
    const life = newLife();
    const [r] = await delivered(life, [result({ totalCostUsd: 0.1, sessionCostUsd: 0.5 })]);
    expect(r?.sessionCostUsd).toBe(0.5);
  });

  it("an interrupted turn has no errorKind", async () => {
    const life = newLife();
    const [r] = await delivered(life, [
      result({ isError: true, subtype: "error_during_execution", terminalReason: "interrupted" }),
    ]);
    expect(r?.errorKind).toBeNull();
  });

  it("a Claude API failure: the assistant's class and the result's status", async () => {
    const life = newLife();
    const assistant: Message = {
      type: "assistant",
      content: [{ type: "text", text: "API Error: 529 overloaded" }],
      model: "m",
      parentToolUseId: null,
      error: "server_error",
      raw: {},
    };
    const out = await delivered(life, [
      assistant,
      result({ isError: true, apiErrorStatus: 529, result: "API Error: 529" }),
    ]);
    expect(out[0]).toMatchObject({ errorKind: "overloaded", apiErrorStatus: 529 });
  });
});

describe("classifyFailure", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const cases: [string, Parameters<typeof classifyFailure>[0], object][] = [
    [
      "Anthropic 429 body",
      {
        status: 429,
        cliKind: "rate_limit",
        texts: ['API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}'],
        stopReason: null,
      },
      { errorKind: "rate_limit", retryAfterMs: null },
    ],
    [
      "a retry hint",
      {
        status: null,
        cliKind: undefined,
        texts: ["Rate limit reached. Please try again in 1.5s."],
        stopReason: null,
      },
      { errorKind: "rate_limit", retryAfterMs: 1500 },
    ],
    [
      "Claude's subscription limit",
      {
        status: null,
        cliKind: "rate_limit",
        texts: ["Claude AI usage limit reached|1767229200"],
        stopReason: null,
      },
      { errorKind: "usage_limit", resetsAt: "2026-01-01T01:00:00.000Z" },
    ],
    [
      "Codex's usage limit",
      {
        status: null,
        cliKind: "usageLimitExceeded",
        texts: ["You've hit your usage limit. Try again in 2 hours."],
        stopReason: null,
      },
      { errorKind: "usage_limit", resetsAt: "2026-01-01T02:00:00.000Z" },
    ],
    [
      "a quota body",
      { status: 429, cliKind: undefined, texts: ["insufficient_quota"], stopReason: null },
      { errorKind: "usage_limit" },
    ],
    ["529", { status: 529, cliKind: undefined, texts: [], stopReason: null }, { errorKind: "overloaded" }],
    [
      "503 in text",
      { status: null, cliKind: undefined, texts: ["last status: 503 Service Unavailable"], stopReason: null },
      { errorKind: "overloaded" },
    ],
    [
      "401",
      { status: 401, cliKind: undefined, texts: [], stopReason: null },
      { errorKind: "authentication_failed" },
    ],
    [
      "credit",
      { status: 400, cliKind: "billing_error", texts: ["Your credit balance is too low"], stopReason: null },
      { errorKind: "billing_error" },
    ],
    [
      "prompt too long",
      {
        status: 400,
        cliKind: "invalid_request",
        texts: ["prompt is too long: 210000 tokens"],
        stopReason: null,
      },
      { errorKind: "context_too_long" },
    ],
    [
      "400",
      { status: 400, cliKind: "invalid_request", texts: ["API Error: 400 bad"], stopReason: null },
      { errorKind: "invalid_request" },
    ],
    ["500", { status: 500, cliKind: undefined, texts: [], stopReason: null }, { errorKind: "server_error" }],
    [
      "refused",
      {
        status: null,
        cliKind: undefined,
        texts: ["Connection error: connect ECONNREFUSED 127.0.0.1:9"],
        stopReason: null,
      },
      { errorKind: "network" },
    ],
    [
      "max tokens",
      { status: null, cliKind: "max_output_tokens", texts: [], stopReason: "max_tokens" },
      { errorKind: "max_output_tokens" },
    ],
    [
      "nothing",
      { status: null, cliKind: undefined, texts: ["it broke"], stopReason: null },
      { errorKind: "unknown" },
    ],
  ];
  for (const [name, facts, want] of cases) {
    it(name, () => expect(classifyFailure(facts, now)).toMatchObject(want));
  }
});
