/**
 * Which query options conflict with the options a warm process was started with.
 */
import { describe, expect, it } from "vitest";
import { conflictingOptions } from "../../../src/warm/option-conflicts.js";

describe("conflictingOptions", () => {
  const canUseTool = async () => ({ behavior: "allow" as const });

  it("options left out or repeated do not conflict; per-query ones never do", () => {
    const warm = { model: "a", env: { A: "1" }, canUseTool, allowedTools: ["Bash"] };
    expect(conflictingOptions(warm, {})).toEqual([]);
    expect(
      conflictingOptions(warm, { model: "a", env: { A: "1" }, canUseTool, allowedTools: ["Bash"] }),
    ).toEqual([]);
    expect(conflictingOptions(warm, { signal: new AbortController().signal, exitTimeoutMs: 5 })).toEqual([]);
  });

  it("a different value, callback or nested field conflicts, named by its option", () => {
    const hook = async () => ({});
    const warm = { model: "a", env: { A: "1" }, canUseTool, hooks: { Stop: [{ hooks: [hook] }] } };
    expect(
      conflictingOptions(warm, {
        model: "b",
        env: { A: "2" },
        canUseTool: async () => ({ behavior: "deny", message: "x" }),
        cwd: "/elsewhere",
      }),
    ).toEqual(["model", "env", "canUseTool", "cwd"]);
    expect(conflictingOptions(warm, { hooks: { Stop: [{ hooks: [async () => ({})] }] } })).toEqual(["hooks"]);
  });
});
