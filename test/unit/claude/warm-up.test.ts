/**
 * The idle warm-up runs one real turn of the Claude backend (session, control handshake, JSON-lines
 * reader, message parser) over an in-memory stand-in: it must complete, start no process, and say
 * nothing to the host (no warning, no output).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Backend } from "../../../src/backends/backend.js";
import { ClaudeBackend } from "../../../src/backends/claude/backend.js";
import { warmUpClaude } from "../../../src/backends/claude/warm-up.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Claude warm-up", () => {
  it("runs one turn to its result without a process, a warning or output", async () => {
    const warnings: unknown[] = [];
    const onWarning = (warning: unknown): void => {
      warnings.push(warning);
    };
    process.on("warning", onWarning);
    const emitWarning = vi.spyOn(process, "emitWarning");
    const backend = new ClaudeBackend();
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
