/**
 * Warm start against the real CLIs, offline: a process started and through its handshake before
 * the prompt (claude 2.1.330: spawn + initialize; codex 0.169.0: app-server + thread/start; codex-acp
 * 0.16.0: initialize + session/new), then
 * a query or client on it; and the lifecycle of warm processes — unused, crashed while waiting,
 * idle timeout, pool closed while one is handed out, host exit — with no process left.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type CommonOptions,
  createSdkMcpServer,
  getBackend,
  InvalidOptionsError,
  type Message,
  prewarm,
  startup,
  tool,
  UnsupportedFeatureError,
  WarmPool,
  WarmStartError,
} from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { eventually, isAlive } from "../lifecycle/support/processes.js";
import { codexAcpBed } from "./acp-support.js";
import { codexBed } from "./codex-support.js";
import { FAKE_CURSOR } from "./cursor-support.js";
import { collect, results, testBed } from "./support.js";

afterEach(async () => {
  expect(await eventually(() => liveGroupCount() === 0)).toBe(true);
});

/** A bed per backend: a scripted model answering `turns` texts, and options pointing at it. */
const backends = [
  {
    name: "claude",
    async bed(texts: string[] = []) {
      const bed = await testBed(texts.map((text) => ({ text })));
      return {
        options: (extra: Omit<CommonOptions, "backend"> = {}) => bed.options(extra),
        requests: () => bed.model.turnRequests.length,
        dispose: () => bed[Symbol.asyncDispose](),
      };
    },
  },
  {
    name: "codex",
    async bed(texts: string[] = []) {
      const bed = await codexBed(texts.map((text) => ({ text })));
      return {
        options: (extra: Omit<CommonOptions, "backend"> = {}) => bed.options(extra),
        requests: () => bed.api.turnRequests.length,
        dispose: () => bed[Symbol.asyncDispose](),
      };
    },
  },
  {
    // An ACP agent: `initialize` + `session/new` before the prompt.
    name: "acp (codex-acp)",
    async bed(texts: string[] = []) {
      const bed = await codexAcpBed(texts.map((text) => ({ text })));
      return {
        options: (extra: Omit<CommonOptions, "backend"> = {}) => bed.options(extra),
        requests: () => bed.api.turnRequests.length,
        dispose: () => bed[Symbol.asyncDispose](),
      };
    },
  },
] as const;

describe.each(backends)("warm start: $name", ({ bed: makeBed }) => {
  it("startup() finishes the handshake before the prompt; the query runs on that process", async () => {
    const bed = await makeBed(["warm answer"]);
    try {
      await using warm = await startup({ options: bed.options() });
      expect(warm.state).toBe("ready");
      const pid = warm.pid;
      expect(pid).toBeGreaterThan(0);
      expect(bed.requests()).toBe(0);
      const q = warm.query("hello");
      const messages = await collect(q);
      expect(q.pid ?? pid).toBe(pid);
      expect(results(messages)).toMatchObject([{ isError: false, result: "warm answer" }]);
      expect(warm.state).toBe("used");
      expect(() => warm.query("again")).toThrow(WarmStartError);
    } finally {
      await bed.dispose();
    }
  });

  it("a client on a warm process runs two turns", async () => {
    const bed = await makeBed(["one", "two"]);
    try {
      const warm = await startup({ options: bed.options() });
      await using client = warm.client();
      await client.connect();
      expect(client.pid).toBe(warm.pid);
      await client.query("first");
      expect(results(await collect(client.receiveResponse()))[0]?.result).toBe("one");
      await client.query("second");
      expect(results(await collect(client.receiveResponse()))[0]?.result).toBe("two");
      // The warm process serves one session: connecting again says so.
      await client.disconnect();
      await expect(client.connect()).rejects.toMatchObject({
        name: "WarmStartError",
        reason: "already-used",
        message: expect.stringMatching(/already taken by its query or client/),
      });
    } finally {
      await bed.dispose();
    }
  });

  it("conflicting options fail at once with the option names; the warm process stays usable", async () => {
    const bed = await makeBed(["still warm"]);
    try {
      // `env` is fixed at spawn on every backend (`model` is not an option of every ACP agent).
      await using warm = await startup({ options: bed.options({ env: { WARM_MARK: "a" } }) });
      const error = (() => {
        try {
          warm.query("x", { env: { ...warm.options.env, WARM_MARK: "b" } });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(WarmStartError);
      expect(error).toMatchObject({ reason: "conflicting-options", options: ["env"] });
      // The same options again, plus a per-query signal, are fine.
      const messages = await collect(
        warm.query("y", { env: { ...warm.options.env }, signal: new AbortController().signal }),
      );
      expect(results(messages)[0]?.result).toBe("still warm");
    } finally {
      await bed.dispose();
    }
  });

  it("an unused warm process ends with close() (await using), leaving nothing", async () => {
    const bed = await makeBed();
    try {
      let pid: number | undefined;
      {
        await using warm = await startup({ options: bed.options() });
        pid = warm.pid;
        expect(isAlive(pid!)).toBe(true);
      }
      expect(await eventually(() => !isAlive(pid!))).toBe(true);
    } finally {
      await bed.dispose();
    }
  });

  it("a query made on it but never started does not pin it: close() still ends the process", async () => {
    const bed = await makeBed();
    try {
      const warm = await startup({ options: bed.options() });
      const pid = warm.pid!;
      warm.query("never iterated");
      expect(warm.state).toBe("used");
      expect(() => warm.query("second")).toThrow(WarmStartError);
      await warm.close();
      expect(await eventually(() => !isAlive(pid))).toBe(true);
    } finally {
      await bed.dispose();
    }
  });

  it("an unused warm process ends at its idle timeout", async () => {
    const bed = await makeBed();
    try {
      const warm = await startup({ options: bed.options(), idleTimeoutMs: 50 });
      const pid = warm.pid!;
      expect(await eventually(() => warm.state === "closed" && !isAlive(pid), 10_000)).toBe(true);
      expect(() => warm.query("late")).toThrow(WarmStartError);
    } finally {
      await bed.dispose();
    }
  });

  it("a warm process that crashed while waiting: the query fails with WarmStartError (exited)", async () => {
    const bed = await makeBed();
    try {
      const warm = await startup({ options: bed.options() });
      process.kill(warm.pid!, "SIGKILL");
      expect(await eventually(() => warm.state === "closed", 10_000)).toBe(true);
      expect(() => warm.query("anyone?")).toThrow(
        expect.objectContaining({ name: "WarmStartError", reason: "exited" }),
      );
    } finally {
      await bed.dispose();
    }
  });

  it("a pool keeps processes ready, hands one out, replaces it; closing it while one is out spares that one", async () => {
    const bed = await makeBed(["pooled one", "pooled two"]);
    try {
      const pool = new WarmPool({ options: bed.options(), size: 2 });
      await pool.ready();
      expect(pool.stats).toMatchObject({ ready: 2, starting: 0 });
      const q = pool.query("first");
      expect(pool.stats).toMatchObject({ ready: 1, starting: 1, warmHits: 1, coldStarts: 0 });
      const first = await q.next();
      expect(first.done).toBe(false);
      await pool.close();
      // The handed-out query still completes; the waiting processes are gone.
      const rest = await collect(q);
      expect(results(rest)[0]?.result).toBe("pooled one");
      expect(pool.stats.ready).toBe(0);
      expect(() => pool.query("after close")).toThrow(/closed/);
    } finally {
      await bed.dispose();
    }
  });
});

describe("warm pool: a pooled process that crashed while waiting", () => {
  it("is dropped, the query starts cold, and the pool starts a replacement", async () => {
    await using bed = await testBed([{ text: "served cold" }]);
    await using pool = new WarmPool({ options: bed.options(), size: 1 });
    await pool.ready();
    const [pid] = pool.readyPids();
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, "SIGKILL");
    expect(await eventually(() => pool.stats.ready === 0, 10_000)).toBe(true);
    const messages = await collect(pool.query("hello"));
    expect(results(messages)[0]?.result).toBe("served cold");
    expect(pool.stats).toMatchObject({ warmHits: 0, coldStarts: 1 });
    await pool.ready();
    expect(pool.stats.ready).toBe(1);
  });
});

describe("warm pool: refillDelayMs", () => {
  it("the replacement waits for the delay; ready() starts it at once; close() cancels a pending one", async () => {
    await using bed = await testBed([{ text: "pooled one" }, { text: "pooled two" }]);
    const pool = new WarmPool({ options: bed.options(), size: 1, refillDelayMs: 600_000 });
    await pool.ready();
    expect(pool.stats).toMatchObject({ ready: 1, starting: 0 });
    const first = await collect(pool.query("first"));
    expect(results(first)[0]?.result).toBe("pooled one");
    // The whole query ran without a replacement starting beside it.
    expect(pool.stats).toMatchObject({ ready: 0, starting: 0, warmHits: 1 });
    await pool.ready();
    expect(pool.stats).toMatchObject({ ready: 1, starting: 0 });
    const second = await collect(pool.query("second"));
    expect(results(second)[0]?.result).toBe("pooled two");
    await pool.close();
    // The pending refill never starts: afterEach finds no process group left.
    expect(pool.stats).toMatchObject({ ready: 0, starting: 0, warmHits: 2, coldStarts: 0 });
  });

  it("a short delay refills the pool on its own", async () => {
    await using bed = await testBed([{ text: "pooled" }]);
    await using pool = new WarmPool({ options: bed.options(), size: 1, refillDelayMs: 1 });
    await pool.ready();
    const [firstPid] = pool.readyPids();
    await collect(pool.query("hello"));
    expect(await eventually(() => pool.stats.ready + pool.stats.starting === 1, 30_000)).toBe(true);
    await pool.ready();
    expect(pool.readyPids()).toHaveLength(1);
    expect(pool.readyPids()[0]).not.toBe(firstPid);
  });

  it("bad durations throw from the constructor, before anything starts", () => {
    for (const refillDelayMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])
      expect(() => new WarmPool({ refillDelayMs })).toThrow(/refillDelayMs/);
    expect(() => new WarmPool({ idleTimeoutMs: 0 })).toThrow(InvalidOptionsError);
    expect(() => new WarmPool({ startupTimeoutMs: -5 })).toThrow(/startupTimeoutMs/);
  });
});

describe("prewarm: a spare claimed into a folder later (claude)", () => {
  it("parks before the folder is known; the claim binds it to the folder and model; the parking directory goes", async () => {
    await using bed = await testBed([{ text: "claimed answer" }]);
    const { cwd: folder, ...hostLevel } = bed.options();
    const spare = await prewarm({ options: hostLevel });
    expect(spare.state).toBe("ready");
    expect(spare.pid).toBeGreaterThan(0);
    expect(existsSync(spare.parkingDir)).toBe(true);
    expect(spare.parkingDir).toContain(join(".claude", "spares", "spare-"));
    expect(bed.model.turnRequests).toHaveLength(0);

    const messages = await collect(
      spare.claim("hello", { cwd: folder as string, model: "claude-sonnet-4-5" }),
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init?.type === "system" && init.data.cwd).toBe(realpathSync(folder as string));
    expect(results(messages)[0]?.result).toBe("claimed answer");
    expect(bed.model.turnRequests[0]?.body.model).toBe("claude-sonnet-4-5");
    const claimed = await spare.claimed;
    expect(claimed).toMatchObject({ cwd: realpathSync(folder as string), sdkMcpSettled: true });
    expect(claimed.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await spare.exited;
    expect(existsSync(spare.parkingDir)).toBe(false);
    expect(() => spare.claim("again", { cwd: folder as string })).toThrow(WarmStartError);
  });

  it("in-process MCP servers and canUseTool given at prewarm serve the claimed session", async () => {
    await using bed = await testBed([
      { toolUse: { name: "mcp__calc__add", input: { a: 2, b: 3 } } },
      (req) => ({ text: JSON.stringify(req.body.messages).includes("SUM=5") ? "sum seen" : "no sum" }),
    ]);
    const { cwd: folder, ...hostLevel } = bed.options();
    const asked: string[] = [];
    const calc = createSdkMcpServer({
      name: "calc",
      tools: [
        tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: `SUM=${a + b}` }],
        })),
      ],
    });
    const spare = await prewarm({
      options: {
        ...hostLevel,
        mcpServers: { calc },
        canUseTool: async (name, input) => {
          asked.push(name);
          return { behavior: "allow", updatedInput: input };
        },
      },
    });
    const messages = await collect(spare.claim("add 2 and 3", { cwd: folder as string }));
    expect(results(messages)[0]?.result).toBe("sum seen");
    expect(asked).toEqual(["mcp__calc__add"]);
    // The server's MCP handshake may still be under way at the claim (this engine answers it when
    // the CLI asks, not ahead in the initialize request): the claim reports which.
    expect(typeof (await spare.claimed).sdkMcpSettled).toBe("boolean");
  });

  it("a client on a spare: connect() claims it into the folder; its turns run there", async () => {
    await using bed = await testBed([{ text: "turn one" }, { text: "turn two" }]);
    const { cwd: folder, ...hostLevel } = bed.options();
    const spare = await prewarm({ options: hostLevel });
    await using client = spare.client({ cwd: folder as string, title: "chat" });
    expect(spare.state).toBe("used");
    await client.connect();
    await expect(client.claimed).resolves.toMatchObject({ cwd: realpathSync(folder as string) });
    expect((await client.run("one")).text).toBe("turn one");
    expect((await client.run("two")).text).toBe("turn two");
    expect(() => spare.client({ cwd: folder as string })).toThrow(WarmStartError);
  });

  it("a refused claim: claimed rejects with the CLI's reason, the prompt gets an error result, nothing is left", async () => {
    await using bed = await testBed([{ text: "never" }]);
    const { cwd: folder, ...hostLevel } = bed.options();
    const spare = await prewarm({ options: hostLevel });
    const messages = await collect(spare.claim("hello", { cwd: join(folder as string, "missing") }));
    expect(results(messages)[0]?.isError).toBe(true);
    await expect(spare.claimed).rejects.toMatchObject({ reason: "claim-refused", message: /^cwd_not_found/ });
    await spare.exited;
    expect(bed.model.turnRequests).toHaveLength(0);
    expect(existsSync(spare.parkingDir)).toBe(false);
  });

  it("bad claim options throw before anything is sent; the spare stays claimable", async () => {
    await using bed = await testBed([{ text: "still fine" }]);
    const { cwd: folder, ...hostLevel } = bed.options();
    await using spare = await prewarm({ options: hostLevel });
    expect(() => spare.claim("x", { cwd: "" })).toThrow(InvalidOptionsError);
    expect(() => spare.claim("x", { cwd: folder as string, maxThinkingTokens: -1 })).toThrow(
      /maxThinkingTokens/,
    );
    expect(spare.state).toBe("ready");
    const messages = await collect(spare.claim("hello", { cwd: folder as string }));
    expect(results(messages)[0]?.result).toBe("still fine");
  });

  it("unclaimed: close() (await using) ends it, claimed rejects with closed, the parking directory goes", async () => {
    await using bed = await testBed();
    const { cwd: _folder, ...hostLevel } = bed.options();
    let parking: string;
    let claimed: Promise<unknown>;
    {
      await using spare = await prewarm({ options: hostLevel });
      parking = spare.parkingDir;
      claimed = spare.claimed;
    }
    await expect(claimed).rejects.toMatchObject({ reason: "closed", message: /^spare_closed/ });
    expect(existsSync(parking)).toBe(false);
  });

  it("crashed while parked: claimed rejects with exited, claim() throws, the parking directory goes", async () => {
    await using bed = await testBed();
    const { cwd: folder, ...hostLevel } = bed.options();
    const spare = await prewarm({ options: hostLevel });
    process.kill(spare.pid!, "SIGKILL");
    await spare.exited;
    await expect(spare.claimed).rejects.toMatchObject({ reason: "exited" });
    expect(() => spare.claim("hello", { cwd: folder as string })).toThrow(WarmStartError);
    expect(existsSync(spare.parkingDir)).toBe(false);
  });

  it("a pool of spares serves claims into different folders; with none ready a claim starts its own", async () => {
    await using bed = await testBed([{ text: "in A" }, { text: "in B" }, { text: "cold" }]);
    const { cwd: _folder, ...hostLevel } = bed.options();
    const folderA = mkdtempSync(join(bed.cwd, "a-"));
    const folderB = mkdtempSync(join(bed.cwd, "b-"));
    await using pool = new WarmPool({ options: hostLevel, size: 1, spares: true, refillDelayMs: 600_000 });
    await pool.ready();
    const initCwd = (messages: Message[]) =>
      messages.flatMap((m) => (m.type === "system" && m.subtype === "init" ? [m.data.cwd] : []))[0];

    const inA = pool.claim("one", { cwd: folderA });
    const a = await collect(inA);
    expect(results(a)[0]?.result).toBe("in A");
    expect(initCwd(a)).toBe(realpathSync(folderA));
    expect((await inA.claimed).cwd).toBe(realpathSync(folderA));

    await pool.ready();
    const b = await collect(pool.claim("two", { cwd: folderB }));
    expect(results(b)[0]?.result).toBe("in B");
    expect(initCwd(b)).toBe(realpathSync(folderB));
    expect(pool.stats).toMatchObject({ warmHits: 2, coldStarts: 0, ready: 0, starting: 0 });

    // None ready (the refill waits for its delay): this claim starts a spare of its own.
    const cold = pool.claim("three", { cwd: folderA });
    expect(results(await collect(cold))[0]?.result).toBe("cold");
    await expect(cold.claimed).resolves.toMatchObject({ cwd: realpathSync(folderA) });
    expect(pool.stats).toMatchObject({ warmHits: 2, coldStarts: 1 });

    expect(() => pool.query("x")).toThrow(/hand them out with claim/);
    expect(() => pool.client()).toThrow(/hand them out with claim/);
    {
      await using warmPool = new WarmPool({ options: hostLevel, size: 1 });
      expect(() => warmPool.claim("x", { cwd: folderA })).toThrow(/need a pool of spares/);
      expect(() => warmPool.claimClient({ cwd: folderA })).toThrow(/need a pool of spares/);
    }
    expect(() => pool.claim("x", { cwd: "" })).toThrow(InvalidOptionsError);
    expect(() => new WarmPool({ options: { backend: "codex" }, spares: true })).toThrow(
      UnsupportedFeatureError,
    );
  });

  it("a pool of spares hands out clients: on a ready spare, then on one started at connect()", async () => {
    await using bed = await testBed([{ text: "warm chat" }, { text: "cold chat" }]);
    const { cwd: folder, ...hostLevel } = bed.options();
    await using pool = new WarmPool({ options: hostLevel, size: 1, spares: true, refillDelayMs: 600_000 });
    await pool.ready();
    for (const expected of ["warm chat", "cold chat"]) {
      await using client = pool.claimClient({ cwd: folder as string });
      await client.connect();
      expect((await client.run("hi")).text).toBe(expected);
      await expect(client.claimed).resolves.toMatchObject({ cwd: realpathSync(folder as string) });
    }
    expect(pool.stats).toMatchObject({ warmHits: 1, coldStarts: 1 });
  });

  it("a claim whose own spare cannot start: the query and claimed fail with the start's error", async () => {
    const failures: unknown[] = [];
    const missing = join(tmpdir(), "cas-no-such-dir", "claude");
    await using pool = new WarmPool({
      options: { cliPath: missing },
      spares: true,
      onError: (error) => failures.push(error),
    });
    await pool.ready();
    expect(failures).toHaveLength(1);
    const q = pool.claim("hello", { cwd: tmpdir() });
    await expect(collect(q)).rejects.toThrow(/cas-no-such-dir/);
    await expect(q.claimed).rejects.toThrow(/cas-no-such-dir/);
    expect(pool.stats.coldStarts).toBe(1);
  });

  it("killed mid-claim: claimed rejects with exited (the signal named, the ProcessError as cause), not claim-refused", async () => {
    await using bed = await testBed([{ text: "never" }]);
    const { cwd: folder, ...hostLevel } = bed.options();
    const spare = await prewarm({ options: hostLevel });
    const pid = spare.pid!;
    // Stopped, it cannot answer the claim; the prompt generator is pulled once the claim was sent.
    process.kill(pid, "SIGSTOP");
    let claimSent!: () => void;
    const sent = new Promise<void>((resolve) => {
      claimSent = resolve;
    });
    async function* prompt() {
      claimSent();
      yield { type: "user", message: { role: "user", content: "hello" } } as const;
    }
    const q = spare.claim(prompt(), { cwd: folder as string });
    const drained = collect(q).catch((error: unknown) => error);
    await sent;
    process.kill(pid, "SIGKILL");
    const error = await spare.claimed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: "WarmStartError",
      reason: "exited",
      message: /^spare_exited: .*SIGKILL/,
    });
    expect((error as Error).cause).toMatchObject({ name: "ProcessError", signal: "SIGKILL" });
    expect(await drained).toMatchObject({ name: "ProcessError", signal: "SIGKILL" });
    await spare.exited;
    expect(existsSync(spare.parkingDir)).toBe(false);
    expect(bed.model.turnRequests).toHaveLength(0);
  });

  it("other backends have no spare", async () => {
    await expect(prewarm({ options: { backend: "codex" } })).rejects.toBeInstanceOf(UnsupportedFeatureError);
  });
});

describe("warm processes handed to a query or client that never starts are closed at once (issue 25 item 5)", () => {
  /** Within this, not at the idle timeout (10 minutes by default; the pools below keep the default). */
  const PROMPTLY_MS = 5_000;
  const aborted = () => AbortSignal.abort(new Error("the caller went away"));

  it("pool.query() then close() without iterating ends the process, also after the pool's close()", async () => {
    await using bed = await testBed();
    const pool = new WarmPool({ options: bed.options(), size: 2, refillDelayMs: 600_000 });
    await pool.ready();
    const [first, second] = pool.readyPids();
    const q1 = pool.query("never iterated");
    await q1.close();
    expect(await eventually(() => !isAlive(first!), PROMPTLY_MS)).toBe(true);
    const q2 = pool.query("never iterated either");
    await pool.close();
    expect(isAlive(second!)).toBe(true); // handed out: the pool's close() leaves it to its query
    await q2.close();
    expect(await eventually(() => !isAlive(second!), PROMPTLY_MS)).toBe(true);
    await expect(q2.next()).resolves.toMatchObject({ done: true });
  });

  it("warm.query() with an already-aborted signal ends the process at once; iterating it reports the abort", async () => {
    await using bed = await testBed();
    const warm = await startup({ options: bed.options() });
    const pid = warm.pid!;
    const q = warm.query("x", { signal: aborted() });
    expect(await eventually(() => !isAlive(pid), PROMPTLY_MS)).toBe(true);
    expect(warm.state).toBe("closed");
    await expect(q.next()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("a query's signal aborted before it starts (a client that went away) ends the process", async () => {
    await using bed = await testBed();
    await using pool = new WarmPool({ options: bed.options(), size: 1, refillDelayMs: 600_000 });
    await pool.ready();
    const [pid] = pool.readyPids();
    const controller = new AbortController();
    pool.query("x", { signal: controller.signal });
    expect(isAlive(pid!)).toBe(true);
    controller.abort();
    expect(await eventually(() => !isAlive(pid!), PROMPTLY_MS)).toBe(true);
  });

  it("a pool hands out no process for a signal already aborted", async () => {
    await using bed = await testBed();
    await using pool = new WarmPool({ options: bed.options(), size: 1, refillDelayMs: 600_000 });
    await pool.ready();
    const [pid] = pool.readyPids();
    await expect(collect(pool.query("x", { signal: aborted() }))).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(pool.client({ signal: aborted() }).connect()).rejects.toMatchObject({ name: "AbortError" });
    expect(pool.readyPids()).toEqual([pid]);
    expect(pool.stats).toMatchObject({ ready: 1, warmHits: 0 });
  });

  it("a client on a warm process disconnected before connect() ends the process", async () => {
    await using bed = await testBed();
    const warm = await startup({ options: bed.options() });
    const pid = warm.pid!;
    const client = warm.client();
    await client.disconnect();
    expect(await eventually(() => !isAlive(pid), PROMPTLY_MS)).toBe(true);
    await expect(client.connect()).rejects.toMatchObject({ name: "WarmStartError", reason: "closed" });
  });

  it("spares: a claim closed before it starts, or given an aborted signal, closes the spare; claimed rejects with closed; the parking directory goes", async () => {
    await using bed = await testBed();
    const { cwd: folder, ...hostLevel } = bed.options();
    for (const end of ["close", "aborted signal", "client disconnect"] as const) {
      const spare = await prewarm({ options: hostLevel });
      const pid = spare.pid!;
      if (end === "close") await spare.claim("x", { cwd: folder as string }).close();
      else if (end === "aborted signal") spare.claim("x", { cwd: folder as string, signal: aborted() });
      else await spare.client({ cwd: folder as string }).disconnect();
      await expect(spare.claimed, end).rejects.toMatchObject({ reason: "closed", message: /^spare_closed/ });
      expect(await eventually(() => !isAlive(pid), PROMPTLY_MS), end).toBe(true);
      await spare.exited;
      expect(existsSync(spare.parkingDir), end).toBe(false);
    }
  });

  it("a pool of spares: a claim closed before it starts ends its spare (after the pool's close() too); a cold claim's claimed settles", async () => {
    await using bed = await testBed();
    const { cwd: folder, ...hostLevel } = bed.options();
    const pool = new WarmPool({ options: hostLevel, size: 1, spares: true, refillDelayMs: 600_000 });
    await pool.ready();
    const [pid] = pool.readyPids();
    const q = pool.claim("x", { cwd: folder as string });
    await pool.close();
    await q.close();
    await expect(q.claimed).rejects.toMatchObject({ reason: "closed" });
    expect(await eventually(() => !isAlive(pid!), PROMPTLY_MS)).toBe(true);

    await using pool2 = new WarmPool({ options: hostLevel, size: 1, spares: true, refillDelayMs: 600_000 });
    await pool2.ready();
    const [ready] = pool2.readyPids();
    // An aborted signal takes no spare; the claim (a cold one) settles at once.
    const cold = pool2.claim("x", { cwd: folder as string, signal: aborted() });
    await expect(cold.claimed).rejects.toMatchObject({ reason: "closed" });
    await expect(collect(cold)).rejects.toMatchObject({ name: "AbortError" });
    const coldClient = pool2.claimClient({ cwd: folder as string, signal: aborted() });
    await expect(coldClient.claimed).rejects.toMatchObject({ reason: "closed" });
    expect(pool2.readyPids()).toEqual([ready]);
  });
});

describe("warm start: what cannot be warmed", () => {
  it("cursor runs one process per turn: its capabilities say so, and startup() throws UnsupportedFeatureError", async () => {
    expect(getBackend("cursor").capabilities.warmStart).toBe(false);
    for (const kind of ["claude", "codex", "acp"] as const)
      expect(getBackend(kind).capabilities.warmStart).toBe(true);
    await expect(startup({ options: { backend: "cursor", cliPath: FAKE_CURSOR } })).rejects.toBeInstanceOf(
      UnsupportedFeatureError,
    );
  });

  it("out-of-range durations are rejected before anything starts", async () => {
    await expect(startup({ idleTimeoutMs: 2 ** 31 })).rejects.toThrow(/idleTimeoutMs/);
    await expect(startup({ timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
  });
});

/**
 * Runs `lines` as a host script (TypeScript, `INDEX` standing for this package's entry) in a node
 * process of its own, expects it to exit 0 by itself, and returns what it printed.
 */
async function runHost(dir: string, lines: string[]): Promise<string> {
  const script = join(dir, "host.mts");
  const index = join(import.meta.dirname, "..", "..", "src", "index.ts");
  writeFileSync(script, lines.join("\n").replaceAll("INDEX", JSON.stringify(index)));
  const tsx = join(import.meta.dirname, "..", "..", "node_modules", "tsx", "dist", "loader.mjs");
  const child = spawn(process.execPath, ["--unhandled-rejections=strict", "--import", tsx, script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(code).toBe(0);
  return out;
}

describe("warm start: host exit", () => {
  const hosts = [
    { name: "claude", bed: () => testBed() },
    { name: "acp (codex-acp)", bed: () => codexAcpBed() },
  ];
  it.each(hosts)(
    "$name: a host that never uses or closes its warm process exits on its own, and the process dies with it",
    async ({ bed: makeBed }) => {
      await using bed = await makeBed();
      const out = await runHost(bed.cwd, [
        "import { startup } from INDEX;",
        `const warm = await startup({ options: ${JSON.stringify(bed.options())} });`,
        "console.log(String(warm.pid));",
      ]);
      const pid = Number(out.trim());
      expect(pid).toBeGreaterThan(0);
      expect(await eventually(() => !isAlive(pid))).toBe(true);
    },
  );

  it("claude: a host that exits with a parked spare: the process dies and its parking directory goes", async () => {
    await using bed = await testBed();
    const { cwd: _folder, ...hostLevel } = bed.options();
    const out = await runHost(bed.cwd, [
      "import { prewarm } from INDEX;",
      `const spare = await prewarm({ options: ${JSON.stringify(hostLevel)} });`,
      "console.log(JSON.stringify({ pid: spare.pid, dir: spare.parkingDir }));",
    ]);
    const { pid, dir } = JSON.parse(out.trim()) as { pid: number; dir: string };
    expect(dir).toContain("spare-");
    expect(await eventually(() => !isAlive(pid))).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it("claude: a host killed with SIGKILL leaves its parking directory; the next spare parked under that home reclaims it", async () => {
    await using bed = await testBed();
    const { cwd: _folder, ...hostLevel } = bed.options();
    const script = join(bed.cwd, "killed-host.mts");
    const index = join(import.meta.dirname, "..", "..", "src", "index.ts");
    writeFileSync(
      script,
      [
        `import { prewarm } from ${JSON.stringify(index)};`,
        `const spare = await prewarm({ options: ${JSON.stringify(hostLevel)} });`,
        "console.log(JSON.stringify({ pid: spare.pid, dir: spare.parkingDir }));",
        "setInterval(() => {}, 1 << 30);",
      ].join("\n"),
    );
    const tsx = join(import.meta.dirname, "..", "..", "node_modules", "tsx", "dist", "loader.mjs");
    const host = spawn(process.execPath, ["--import", tsx, script], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise((resolve) => host.on("exit", resolve));
    let out = "";
    await new Promise<void>((resolve) =>
      host.stdout.on("data", (d) => {
        out += d;
        if (out.includes("\n")) resolve();
      }),
    );
    const { pid, dir } = JSON.parse(out.trim()) as { pid: number; dir: string };
    host.kill("SIGKILL");
    await exited;
    // No exit hook ran: the directory stays (its CLI, left without input, ends by itself).
    expect(existsSync(dir)).toBe(true);
    expect(await eventually(() => !isAlive(pid), 10_000)).toBe(true);
    await using spare = await prewarm({ options: hostLevel });
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(spare.parkingDir)).toBe(true);
  });
});
