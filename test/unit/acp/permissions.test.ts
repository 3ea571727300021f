/** Permission options are chosen by kind, never by id (ids differ per agent). */
import { describe, expect, it } from "vitest";
import { askCanUseTool, outcomeFor, type PermissionOption } from "../../../src/backends/acp/permissions.js";

// As gemini, claude-code-acp and codex-acp offer them (ids from the transcripts).
const gemini: PermissionOption[] = [
  { optionId: "proceed_always", kind: "allow_always" },
  { optionId: "proceed_once", kind: "allow_once" },
  { optionId: "cancel", kind: "reject_once" },
];
const claude: PermissionOption[] = [
  { optionId: "allow_always", kind: "allow_always" },
  { optionId: "allow", kind: "allow_once" },
  { optionId: "reject", kind: "reject_once" },
];
const onlyAlways: PermissionOption[] = [
  { optionId: "approved-forever", kind: "allow_always" },
  { optionId: "abort", kind: "reject_always" },
];

describe("outcomeFor", () => {
  it("allow → the allow_once option; with updatedPermissions → allow_always", () => {
    expect(outcomeFor({ behavior: "allow" }, gemini).outcome).toEqual({
      outcome: "selected",
      optionId: "proceed_once",
    });
    expect(outcomeFor({ behavior: "allow" }, claude).outcome).toEqual({
      outcome: "selected",
      optionId: "allow",
    });
    const remember = {
      behavior: "allow" as const,
      updatedPermissions: [
        { type: "setMode" as const, mode: "default" as const, destination: "session" as const },
      ],
    };
    expect(outcomeFor(remember, claude).outcome).toEqual({ outcome: "selected", optionId: "allow_always" });
    expect(outcomeFor({ behavior: "allow" }, onlyAlways).outcome).toEqual({
      outcome: "selected",
      optionId: "approved-forever",
    });
  });

  it("deny → reject_once, else reject_always, else cancelled", () => {
    expect(outcomeFor({ behavior: "deny", message: "no" }, gemini).outcome).toEqual({
      outcome: "selected",
      optionId: "cancel",
    });
    expect(outcomeFor({ behavior: "deny", message: "no" }, onlyAlways).outcome).toEqual({
      outcome: "selected",
      optionId: "abort",
    });
    expect(
      outcomeFor({ behavior: "deny", message: "no" }, [{ optionId: "x", kind: "allow_once" }]).outcome,
    ).toEqual({ outcome: "cancelled" });
  });

  it("an allow with no allow option offered cancels, and says why", () => {
    const { outcome, problem } = outcomeFor({ behavior: "allow" }, [{ optionId: "r", kind: "reject_once" }]);
    expect(outcome).toEqual({ outcome: "cancelled" });
    expect(problem).toMatch(/no allow option/);
  });
});

describe("askCanUseTool", () => {
  const call = { name: "Bash", input: { command: "ls" }, toolUseId: "t1" };
  const never = new AbortController().signal;

  it("no callback denies (a policy, not a problem)", async () => {
    expect(await askCanUseTool(undefined, call, {}, never, 1000)).toEqual({
      decision: { behavior: "deny", message: "no canUseTool callback is set" },
    });
  });

  it("a throw denies with its message; a bad answer denies", async () => {
    expect(
      await askCanUseTool(
        () => {
          throw new Error("nope");
        },
        call,
        {},
        never,
        1000,
      ),
    ).toEqual({ decision: { behavior: "deny", message: "nope" }, problem: "nope" });
    expect(await askCanUseTool(() => ({}) as never, call, {}, never, 1000)).toMatchObject({
      decision: { behavior: "deny" },
      problem: "canUseTool returned neither allow nor deny: {}",
    });
  });

  it("a callback that never answers is denied at the timeout, and its signal aborts", async () => {
    let seen: AbortSignal | undefined;
    const decision = await askCanUseTool(
      (_n, _i, ctx) => {
        seen = ctx.signal;
        return new Promise(() => undefined);
      },
      call,
      {},
      never,
      50,
    );
    expect(decision).toMatchObject({
      decision: { behavior: "deny" },
      problem: expect.stringContaining("within 50 ms"),
    });
    expect(seen?.aborted).toBe(true);
  });

  it("passes the tool name, input and id", async () => {
    const decision = await askCanUseTool(
      (name, input, ctx) =>
        ({
          behavior: name === "Bash" && input.command === "ls" && ctx.toolUseId === "t1" ? "allow" : "deny",
          message: "",
        }) as never,
      call,
      {},
      never,
      1000,
    );
    expect(decision).toEqual({ decision: { behavior: "allow" } });
  });
});
