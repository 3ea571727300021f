import { describe, expect, it } from "vitest";
import { MessageHub } from "../../../src/internal/message-hub.js";

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
});

describe("MessageHub turn views", () => {
  const isResult = (m: string) => m.startsWith("result");

  it("a response view started after a monitor took the turn's first messages still gets the whole turn", async () => {
    const hub = new MessageHub<string>(isResult);
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
    const hub = new MessageHub<string>(isResult);
    for (const m of ["init-1", "result-1", "init-2", "result-2"]) hub.push(m);
    expect(await take(hub.subscribeTurn())).toEqual(["init-1", "result-1"]);
    expect(await take(hub.subscribeTurn())).toEqual(["init-2", "result-2"]);
  });

  it("after receiveMessages read through a result, the next response view starts after it", async () => {
    const hub = new MessageHub<string>(isResult);
    for (const m of ["init-1", "result-1"]) hub.push(m);
    expect(await take(hub.subscribe(isResult))).toEqual(["init-1", "result-1"]);
    hub.push("init-2");
    hub.push("result-2");
    expect(await take(hub.subscribeTurn())).toEqual(["init-2", "result-2"]);
  });
});
