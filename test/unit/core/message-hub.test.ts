import { describe, expect, it } from "vitest";
import { MessageHub, type TurnRetentionLimits } from "../../../src/session/message-hub.js";

async function take<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("MessageHub", () => {
  it("delivers messages pushed before the first subscriber", async () => {
    const hub = new MessageHub<number>();
    hub.push(1);
    hub.push(2);
    hub.end();
    expect(await take(hub.subscribe())).toEqual([1, 2]);
  });

  it("gives concurrent subscribers every message", async () => {
    const hub = new MessageHub<number>();
    const a = take(hub.subscribe());
    const b = take(hub.subscribe((n) => n === 2));
    for (const n of [1, 2, 3]) hub.push(n);
    hub.end();
    expect(await a).toEqual([1, 2, 3]);
    expect(await b).toEqual([1, 2]);
  });

  it("a later subscriber starts where earlier ones stopped", async () => {
    const hub = new MessageHub<number>();
    for (const n of [1, 2, 3, 4]) hub.push(n);
    expect(await take(hub.subscribe((n) => n === 2))).toEqual([1, 2]);
    hub.end();
    expect(await take(hub.subscribe())).toEqual([3, 4]);
  });

  it("rethrows the end error after draining", async () => {
    const hub = new MessageHub<number>();
    hub.push(1);
    hub.end(new Error("boom"));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const n of hub.subscribe()) seen.push(n);
      })(),
    ).rejects.toThrow("boom");
    expect(seen).toEqual([1]);
  });

  it("keeps memory bounded while a reader keeps up", async () => {
    const hub = new MessageHub<number>();
    const reader = take(hub.subscribe());
    for (let i = 0; i < 10_000; i++) {
      hub.push(i);
      if (i % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    hub.end();
    expect((await reader).length).toBe(10_000);
    expect((hub as unknown as { log: number[] }).log.length).toBeLessThan(2_100);
  });

  it("empties its log in place when the reader catches up (no fresh array per stdout chunk)", async () => {
    // A fresh `[]` has small-integer elements: the first message pushed onto it deoptimized the
    // read path once per query (V8 then compiled it all again; bench/README.md, issue 31).
    const hub = new MessageHub<{ n: number }>();
    const reader = hub.subscribe();
    const log = hub.log;
    hub.push({ n: 1 });
    hub.push({ n: 2 });
    expect((await reader.next()).value).toEqual({ n: 1 });
    expect((await reader.next()).value).toEqual({ n: 2 });
    expect(hub.log).toBe(log);
    expect(hub.log.length).toBe(0);
    hub.push({ n: 3 });
    expect((await reader.next()).value).toEqual({ n: 3 });
    expect(hub.log).toBe(log);
  });
});

describe("MessageHub turn views", () => {
  const isResult = (m: string) => m.startsWith("result");
  /** A hub that keeps the current turn for late response views, as AgentSdkClient's sessions do. */
  function retainingHub(limits: Partial<TurnRetentionLimits<string>> = {}): MessageHub<string> {
    const hub = new MessageHub<string>(isResult);
    hub.retainTurns({ maxMessages: 10_000, maxBytes: 1 << 20, weigh: (m) => m.length, ...limits });
    return hub;
  }

  it("a response view started after a monitor took the turn's first messages still gets the whole turn", async () => {
    const hub = retainingHub();
    const monitor = take(hub.subscribe());
    hub.push("init-1");
    await new Promise((r) => setImmediate(r));
    const response = take(hub.subscribeTurn());
    hub.push("text-1");
    hub.push("result-1");
    hub.end();
    expect(await response).toEqual(["init-1", "text-1", "result-1"]);
    expect(await monitor).toEqual(["init-1", "text-1", "result-1"]);
  });

  it("a response view after a finished turn starts with the next turn", async () => {
    const hub = retainingHub();
    for (const m of ["init-1", "result-1", "init-2", "result-2"]) hub.push(m);
    expect(await take(hub.subscribeTurn())).toEqual(["init-1", "result-1"]);
    expect(await take(hub.subscribeTurn())).toEqual(["init-2", "result-2"]);
  });

  it("after receiveMessages read through a result, the next response view starts after it", async () => {
    const hub = retainingHub();
    for (const m of ["init-1", "result-1"]) hub.push(m);
    expect(await take(hub.subscribe(isResult))).toEqual(["init-1", "result-1"]);
    hub.push("init-2");
    hub.push("result-2");
    expect(await take(hub.subscribeTurn())).toEqual(["init-2", "result-2"]);
  });

  it("keeps at most maxMessages of the turn for a late response view", async () => {
    const hub = retainingHub({ maxMessages: 3 });
    const monitor = hub.subscribe();
    for (const m of ["a", "b", "c", "d", "e"]) hub.push(m);
    for (let i = 0; i < 5; i++) await monitor.next();
    const response = take(hub.subscribeTurn());
    hub.push("result-1");
    hub.end();
    expect(await response).toEqual(["c", "d", "e", "result-1"]);
  });

  it("keeps at most maxBytes of the turn for a late response view", async () => {
    const hub = retainingHub({ maxBytes: 10 });
    const monitor = hub.subscribe();
    for (const m of ["aaaa", "bbbb", "cccc"]) hub.push(m);
    for (let i = 0; i < 3; i++) await monitor.next();
    const response = take(hub.subscribeTurn());
    hub.push("result-1");
    hub.end();
    expect(await response).toEqual(["bbbb", "cccc", "result-1"]);
  });

  it("without retention (a single reader, as in query()) keeps nothing a reader has passed", async () => {
    const hub = new MessageHub<string>(isResult);
    const reader = hub.subscribe();
    for (let i = 0; i < 5000; i++) hub.push(`m${i}`);
    for (let i = 0; i < 5000; i++) await reader.next();
    expect((hub as unknown as { log: string[] }).log.length).toBe(0);
  });
});

describe("MessageHub subscriptions", () => {
  it("serves concurrent next() calls in order, also while waiting", async () => {
    const hub = new MessageHub<number>();
    const reader = hub.subscribe();
    const results = Promise.all([reader.next(), reader.next(), reader.next()]);
    hub.push(1);
    hub.push(2);
    hub.end();
    expect(await results).toEqual([
      { done: false, value: 1 },
      { done: false, value: 2 },
      { done: true, value: undefined },
    ]);
  });

  it("reports the end error once, then done", async () => {
    const hub = new MessageHub<number>();
    const reader = hub.subscribe();
    hub.end(new Error("boom"));
    await expect(reader.next()).rejects.toThrow("boom");
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("return() releases the reader and ends pending next() calls", async () => {
    const hub = new MessageHub<number>();
    const reader = hub.subscribe();
    const pending = reader.next();
    expect(await reader.return()).toEqual({ done: true, value: undefined });
    expect(await pending).toEqual({ done: true, value: undefined });
    hub.push(1);
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("throw() ends the reader with the error", async () => {
    const hub = new MessageHub<number>();
    const reader = hub.subscribe();
    await expect(reader.throw(new Error("stop"))).rejects.toThrow("stop");
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("hooks see each item as it is handed out, and the end settles after finish", async () => {
    const hub = new MessageHub<number>();
    const seen: number[] = [];
    let finished: unknown = "not yet";
    const reader = hub.subscribe(undefined, {
      observe: (n) => seen.push(n),
      finish: async (error) => {
        finished = error;
        return new Error("reported");
      },
    });
    hub.push(1);
    hub.end();
    expect(await reader.next()).toEqual({ done: false, value: 1 });
    expect(seen).toEqual([1]);
    await expect(reader.next()).rejects.toThrow("reported");
    expect(finished).toBeUndefined();
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });
});
