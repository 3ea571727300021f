/**
 * The portable limits and failure classes on Cursor (its print mode has no turn or time limit):
 * the SDK enforces them. Driven with the documented-shape stand-in (see cursor-support.ts).
 */
import { describe, expect, it } from "vitest";
import { AgentSdkClient, query, TimeoutError } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { cursorBed, FAKE_CURSOR_VERSION } from "./cursor-support.js";

describe(`portable limits on the cursor stand-in ${FAKE_CURSOR_VERSION}`, () => {
  it("maxTurns ends the turn after its tool round (error_max_turns); the next turn runs", async () => {
    await using bed = cursorBed();
    await using client = new AgentSdkClient(bed.options({ maxTurns: 1 }));
    await client.connect();
    const first = await client.run("TOOL_SHELL please");
    expect(first.result).toMatchObject({ subtype: "error_max_turns", isError: true, errorKind: null });
    const next = await client.run("hello");
    expect(next.result.isError).toBe(false);
  });

  it("timeoutMs ends a turn that does not finish with a TimeoutError, its process gone", async () => {
    await using bed = cursorBed();
    const error = await query({ prompt: "GATE", options: bed.options({ timeoutMs: 1000 }) })
      .collect()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(liveGroupCount()).toBe(0);
  });

  it("a quota failure → usage_limit; the result has the one shape", async () => {
    await using bed = cursorBed();
    const turn = await query({ prompt: "FAIL", options: bed.options() }).collect();
    expect(turn.errorKind).toBe("usage_limit");
    expect(turn.result).toMatchObject({
      isError: true,
      sessionCostUsd: null,
      modelUsage: null,
      apiErrorStatus: null,
    });
  });

  it("maxBudgetUsd is refused before spawn (Cursor reports no cost)", async () => {
    await using bed = cursorBed();
    await expect(
      query({ prompt: "x", options: bed.options({ maxBudgetUsd: 1 } as never) }).collect(),
    ).rejects.toMatchObject({
      name: "UnsupportedOptionsError",
    });
    expect(bed.invocations()).toHaveLength(0);
  });
});
