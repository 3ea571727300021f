/**
 * The warm-up runs one real turn of a backend (Claude: session, control handshake, JSON-lines
 * reader, message parser; Codex: the `exec --json` session) over an in-memory stand-in: it must
 * complete, start no process, and say nothing to the host (no warning, no output).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Backend } from "../../../src/backends/backend.js";
import { ClaudeBackend } from "../../../src/backends/claude/backend.js";
import { warmUpClaude } from "../../../src/backends/claude/warm-up.js";
import { CodexBackend } from "../../../src/backends/codex/backend.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("backend warm-up", () => {
  it.each([
    ["claude", () => new ClaudeBackend()],
    ["codex", () => new CodexBackend()],
  ] as const)("%s: runs one turn to its result without a process, a warning or output", async (_, make) => {
    const warnings: unknown[] = [];
    const onWarning = (warning: unknown): void => {
      warnings.push(warning);
    };
    process.on("warning", onWarning);
    const emitWarning = vi.spyOn(process, "emitWarning");
    const backend = make();
    const openSession = vi.spyOn(backend, "openSession");
    try {
      await backend.warmUp();
      await backend.warmUp();
    } finally {
      process.off("warning", onWarning);
    }
    expect(emitWarning).not.toHaveBeenCalled();
    expect(warnings).toEqual([]);
    expect(openSession).toHaveBeenCalledTimes(2);
    const session = await openSession.mock.results[0]?.value;
    expect(session.pid?.()).toBeUndefined();
  });

  it("rejects when the turn does not reach its result", async () => {
    const backend = new ClaudeBackend();
    const silent: Backend = {
      name: "claude",
      capabilities: backend.capabilities,
      validateOptions: (options) => backend.validateOptions(options),
      openSession: async (params) => {
        const session = await backend.openSession(params);
        return Object.assign(Object.create(session), {
          // A session whose output ends before any message: the warm-up must not call that done.
          subscribe: async function* () {},
          close: () => session.close(),
        });
      },
    };
    await expect(warmUpClaude(silent)).rejects.toThrow(/without a result/);
  });
});
