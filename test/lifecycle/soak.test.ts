/**
 * 1 000 sequential sessions against a fast stand-in CLI (a tiny C program compiled at test time, so
 * the test measures the SDK, not node start-up): open file descriptors, child processes, live
 * process groups and signal listeners must stay flat. Asserts bounds on resources, never on time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentOptions, AgentSdkClient, query } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { LIFECYCLE_BACKENDS, NOT_POSIX } from "./support/backends.js";
import { liveChildren, openFdCount } from "./support/processes.js";
import { flushReport, settled, stopwatch } from "./support/report.js";

const SESSIONS = 1000;
const SAMPLE_EVERY = 50;
/** Descriptors a session may legitimately leave behind for good: none, plus a little slack for
 * lazily opened runtime handles (the warm-up opens those before the baseline is taken). */
const FD_SLACK = 4;

/** One session, alternating query() and AgentSdkClient so both paths are soaked. */
async function oneSession(i: number, options: AgentOptions): Promise<string | undefined> {
  if (i % 2 === 0) {
    let result: string | undefined;
    for await (const m of query({ prompt: "hi", options })) if (m.type === "result") result = m.result;
    return result;
  }
  await using client = new AgentSdkClient(options);
  await client.connect("hi");
  for await (const m of client.receiveResponse()) if (m.type === "result") return m.result;
  return undefined;
}

describe.skipIf(NOT_POSIX).each(LIFECYCLE_BACKENDS)("1 000 sequential sessions: $name", (backend) => {
  let dir: string;
  let fast: ReturnType<typeof backend.fastCli>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `cas-soak-${backend.name}-`));
    fast = backend.fastCli(dir);
  });
  afterAll(() => {
    flushReport(`soak/${backend.name}`);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${SESSIONS} sessions leave fd count, child count, groups and listeners flat`, async (ctx) => {
    if ("skip" in fast) return ctx.skip(fast.skip);
    const { options } = fast;
    // Warm-up: the first sessions open long-lived runtime handles (signal pipes, thread pool).
    for (let i = 0; i < 6; i++) expect(await oneSession(i, options)).toBeDefined();
    const baseline = {
      fds: openFdCount(),
      children: liveChildren().length,
      sigterm: process.listenerCount("SIGTERM"),
      exit: process.listenerCount("exit"),
    };
    expect(baseline.children).toBe(0);

    const fdSamples: number[] = [];
    const childSamples: number[] = [];
    const elapsed = stopwatch();
    let results = 0;
    for (let i = 0; i < SESSIONS; i++) {
      if ((await oneSession(i, options)) !== undefined) results += 1;
      if (i % SAMPLE_EVERY === SAMPLE_EVERY - 1) {
        fdSamples.push(openFdCount());
        childSamples.push(liveChildren().length);
      }
    }
    const ms = elapsed();

    expect(results).toBe(SESSIONS);
    expect(Math.max(...fdSamples)).toBeLessThanOrEqual(baseline.fds + FD_SLACK);
    expect(openFdCount()).toBeLessThanOrEqual(baseline.fds + FD_SLACK);
    expect(Math.max(...childSamples)).toBe(0);
    expect(liveGroupCount()).toBe(0);
    expect(process.listenerCount("SIGTERM")).toBe(baseline.sigterm);
    expect(process.listenerCount("exit")).toBe(baseline.exit);
    settled({
      backend: backend.name,
      case: `12 ${SESSIONS} sequential sessions`,
      behaviour: `fds ${baseline.fds}→${Math.min(...fdSamples)}..${Math.max(...fdSamples)}, avg ${(ms / SESSIONS).toFixed(1)} ms/session`,
      // The bound applies per session; the whole soak is bounded by the test timeout.
      settleMs: Math.round(ms / SESSIONS),
      childrenLeft: liveChildren().length,
    });
  }, 120_000);
});
