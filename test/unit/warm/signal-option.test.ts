/**
 * A `signal` option that is not an `AbortSignal` (`{}`, `{ aborted: false }`, a controller, a proxy
 * whose traps throw) is refused with `InvalidOptionsError` when the query, client, warm process or
 * pool is made, on every entry point — it used to reach Node and fail with a bare `TypeError` (or,
 * `{ aborted: true }`, read as an abort). Nothing is spawned.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Session } from "../../../src/backends/backend.js";
import {
  prewarm as compatPrewarm,
  query as compatQuery,
  startup as compatStartup,
} from "../../../src/compat/claude-agent-sdk/index.js";
import { Codex } from "../../../src/compat/codex-sdk/index.js";
import {
  AgentSdkClient,
  InvalidOptionsError,
  prewarm,
  query,
  SpareSession,
  startup,
  WarmPool,
  WarmSession,
} from "../../../src/index.js";

const throwingProxy = new Proxy(
  {},
  {
    getPrototypeOf() {
      throw new Error("trap");
    },
    get() {
      throw new Error("trap");
    },
  },
);
const notSignals: [string, unknown][] = [
  ["{}", {}],
  ["{ aborted: false }", { aborted: false, addEventListener() {} }],
  ["{ aborted: true }", { aborted: true }],
  ["an AbortController", new AbortController()],
  ["a string", "abort"],
  ["null", null],
  ["a proxy whose traps throw", throwingProxy],
];

const dir = mkdtempSync(join(tmpdir(), "cas-signal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Nothing can start from here: a test that reached a spawn would fail loudly. */
const missingCli = join(dir, "no-such-claude");

function invalid(run: () => unknown, name = "signal"): void {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InvalidOptionsError);
  expect((error as InvalidOptionsError).issues.join("\n")).toContain(`${name}: must be an AbortSignal`);
}

async function invalidAsync(run: () => Promise<unknown>, name: string): Promise<void> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidOptionsError);
  expect((error as InvalidOptionsError).issues.join("\n")).toContain(`${name}: must be an AbortSignal`);
}

/** A warm session on a stand-in session: enough to reach the checks of query() / client() / claim(). */
function standInWarm(): WarmSession {
  const session = {
    setKeepAlive() {},
    isAlive: () => true,
    close: async () => undefined,
    closed: () => new Promise<void>(() => undefined),
  } as unknown as Session;
  return new WarmSession(session, {}, "claude", Number.POSITIVE_INFINITY);
}

describe.each(notSignals)("signal: %s → InvalidOptionsError, nothing started", (_label, value) => {
  const signal = value as AbortSignal;

  it("query() and new AgentSdkClient()", () => {
    invalid(() => query({ prompt: "x", options: { cliPath: missingCli, signal } }));
    invalid(() => new AgentSdkClient({ cliPath: missingCli, signal }));
  });

  it("startup() and prewarm()", async () => {
    await invalidAsync(() => startup({ options: { cliPath: missingCli, signal } }), "options.signal");
    await invalidAsync(() => prewarm({ options: { cliPath: missingCli, signal } }), "options.signal");
  });

  it("WarmSession.query() / client(), SpareSession.claim() / client(): the process stays ready", () => {
    const warm = standInWarm();
    invalid(() => warm.query("x", { signal }));
    invalid(() => warm.client({ signal }));
    expect(warm.state).toBe("ready");
    const spare = new SpareSession(standInWarm(), dir, () => undefined);
    invalid(() => spare.claim("x", { cwd: dir, signal }));
    invalid(() => spare.client({ cwd: dir, signal }));
    expect(spare.state).toBe("ready");
  });

  it("WarmPool: its options, query() / client(), claim() / claimClient()", async () => {
    invalid(() => new WarmPool({ options: { cliPath: missingCli, signal } }), "options.signal");
    const failures: unknown[] = [];
    const pool = new WarmPool({ options: { cliPath: missingCli }, onError: (e) => failures.push(e) });
    invalid(() => pool.query("x", { signal }));
    invalid(() => pool.client({ signal }));
    await pool.close();
    const spares = new WarmPool({
      options: { cliPath: missingCli },
      spares: true,
      onError: (e) => failures.push(e),
    });
    invalid(() => spares.claim("x", { cwd: dir, signal }));
    invalid(() => spares.claimClient({ cwd: dir, signal }));
    await spares.close();
    expect(spares.stats.coldStarts).toBe(0);
  });

  it("compat: claude query() / startup() / prewarm() (abortController.signal), codex run() / runStreamed()", async () => {
    const abortController = { signal } as unknown as AbortController;
    invalid(
      () =>
        compatQuery({ prompt: "x", options: { pathToClaudeCodeExecutable: missingCli, abortController } }),
      "abortController.signal",
    );
    await invalidAsync(() => compatStartup({ options: { abortController } }), "abortController.signal");
    await invalidAsync(() => compatPrewarm({ options: { abortController } }), "abortController.signal");
    const thread = new Codex({ codexPathOverride: missingCli }).startThread();
    await invalidAsync(() => thread.run("x", { signal }), "signal");
    await invalidAsync(() => thread.runStreamed("x", { signal }), "signal");
  });
});

describe("what is not a signal option problem", () => {
  it("a real AbortSignal (also an aborted one) and no signal are accepted at creation", () => {
    for (const signal of [undefined, new AbortController().signal, AbortSignal.abort()]) {
      expect(() => query({ prompt: "x", options: { cliPath: missingCli, signal } })).not.toThrow();
      expect(() => new AgentSdkClient({ cliPath: missingCli, signal })).not.toThrow();
    }
  });

  it("compat: an abortController without a signal is refused rather than silently dropped", () => {
    invalid(
      () => compatQuery({ prompt: "x", options: { abortController: {} as AbortController } }),
      "abortController.signal",
    );
  });
});
