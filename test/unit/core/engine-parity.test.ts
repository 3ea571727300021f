/**
 * One engine behind `query()` and `AgentSdkClient`: the same misuse gives the same typed error on
 * both (same class, same message), driven over a scripted Claude CLI and, for the controls a
 * backend lacks, Codex and Cursor (refused before anything is spawned).
 */
import { describe, expect, it } from "vitest";
import {
  AbortError,
  type AgentOptions,
  AgentSdkClient,
  NotConnectedError,
  type Query,
  query,
  TurnInProgressError,
  UnsupportedFeatureError,
} from "../../../src/index.js";
import { cliLike, inertTransport, resultLine, ScriptedTransport } from "../support/scripted-transport.js";

/** A Claude CLI that answers `initialize` and every user turn with a result. */
function claudeCli(): ScriptedTransport {
  return new ScriptedTransport(cliLike((t) => t.emit(resultLine("ok"))));
}

/** The error `action` rejects (or throws) with, as class and message; `undefined` when it succeeds. */
async function failure(action: () => unknown): Promise<{ type: string; message: string } | undefined> {
  try {
    await action();
    return undefined;
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { type: error.constructor.name, message: error.message };
  }
}

/** A query and a client on the same options; typed for any backend, as a JavaScript caller sees them. */
function both(options: AgentOptions): { q: Query; client: AgentSdkClient } {
  return { q: query({ prompt: "hi", options }), client: new AgentSdkClient(options) };
}

describe("query() and AgentSdkClient: the same misuse, the same error", () => {
  it.each([
    ["codex", "supportedModels", (s: Query | AgentSdkClient) => s.supportedModels()],
    ["codex", "rewindFiles", (s: Query | AgentSdkClient) => s.rewindFiles("u1")],
    ["codex", "setPermissionMode", (s: Query | AgentSdkClient) => s.setPermissionMode("plan")],
    ["codex", "setMaxThinkingTokens", (s: Query | AgentSdkClient) => s.setMaxThinkingTokens(100)],
    ["codex", "controlRequest", (s: Query | AgentSdkClient) => s.controlRequest({ subtype: "x" })],
    ["cursor", "setModel", (s: Query | AgentSdkClient) => s.setModel("other")],
    ["cursor", "getContextUsage", (s: Query | AgentSdkClient) => s.getContextUsage()],
  ] as const)(
    "a control the backend lacks (%s %s): UnsupportedFeatureError",
    async (backend, feature, call) => {
      const transport = new ScriptedTransport(() => undefined);
      const { q, client } = both({ backend, transport } as AgentOptions);
      const fromQuery = await failure(() => call(q));
      const fromClient = await failure(() => call(client));
      expect(fromQuery).toEqual({
        type: UnsupportedFeatureError.name,
        message: new UnsupportedFeatureError(feature, backend).message,
      });
      expect(fromClient).toEqual(fromQuery);
      // Refused from the backend's kind alone: nothing was started.
      expect(transport.written).toEqual([]);
      await Promise.all([q.close(), client.disconnect()]);
    },
  );

  it("a control before the session is open: NotConnectedError", async () => {
    const { q, client } = both({ transport: claudeCli() });
    const fromQuery = await failure(() => q.setModel("other"));
    const fromClient = await failure(() => client.setModel("other"));
    expect(fromQuery?.type).toBe(NotConnectedError.name);
    expect(fromClient).toEqual(fromQuery);
    expect(await failure(() => q.supportedModels())).toEqual(fromQuery);
    expect(await failure(() => client.supportedModels())).toEqual(fromQuery);
    await Promise.all([q.close(), client.disconnect()]);
  });

  it("a control after close: NotConnectedError, on both", async () => {
    const q = query({ prompt: "hi", options: { transport: claudeCli() } });
    await q.next();
    await q.close();
    const client = new AgentSdkClient({ transport: claudeCli() });
    await client.connect();
    await client.disconnect();
    for (const [fromQuery, fromClient] of [
      [() => q.setModel("other"), () => client.setModel("other")],
      [() => q.supportedModels(), () => client.supportedModels()],
      [() => q.rewindFiles("u1"), () => client.rewindFiles("u1")],
      [() => q.serverInfo(), () => client.getServerInfo()],
      [() => q.interrupt(), () => client.interrupt()],
    ] as const) {
      const expected = await failure(fromQuery);
      expect(expected?.type).toBe(NotConnectedError.name);
      expect(expected?.message).toMatch(/closed/);
      expect(await failure(fromClient)).toEqual(expected);
    }
  });

  it("a second turn while one is collected: TurnInProgressError", async () => {
    const q = query({ prompt: "hi", options: { transport: claudeCli() } });
    const first = q.collect();
    const fromQuery = await failure(() => q.collect());
    expect((await first).text).toBe("ok");

    await using client = new AgentSdkClient({ transport: claudeCli() });
    await client.connect();
    const firstRun = client.run("one");
    const fromClient = await failure(() => client.run("two"));
    expect((await firstRun).text).toBe("ok");

    expect(fromQuery).toEqual({
      type: TurnInProgressError.name,
      message: new TurnInProgressError("collect()").message,
    });
    expect(fromClient).toEqual({
      type: TurnInProgressError.name,
      message: new TurnInProgressError("run()").message,
    });
    // Once the first is done, the next one runs.
    expect((await client.run("three")).text).toBe("ok");
  });

  it("closing twice (and concurrently) resolves every time, and closes the transport once opened", async () => {
    const queryCli = claudeCli();
    const q = query({ prompt: "hi", options: { transport: queryCli } });
    await q.next();
    const clientCli = claudeCli();
    const client = new AgentSdkClient({ transport: clientCli });
    await client.connect();
    expect(await failure(() => Promise.all([q.close(), q.close()]))).toBeUndefined();
    expect(await failure(() => q.close())).toBeUndefined();
    expect(await failure(() => Promise.all([client.disconnect(), client.disconnect()]))).toBeUndefined();
    expect(await failure(() => client.disconnect())).toBeUndefined();
    expect([queryCli.closed, clientCli.closed]).toEqual([true, true]);
    // Never opened: closing twice is fine too.
    const idle = both({ transport: inertTransport });
    await idle.q.close();
    await idle.q.close();
    await idle.client.disconnect();
    await idle.client.disconnect();
  });

  it("an aborted signal before the open: AbortError, and nothing is started", async () => {
    const reason = new Error("stop");
    const queryCli = claudeCli();
    const clientCli = claudeCli();
    const q = query({ prompt: "hi", options: { transport: queryCli, signal: AbortSignal.abort(reason) } });
    const client = new AgentSdkClient({ transport: clientCli, signal: AbortSignal.abort(reason) });
    const fromQuery = await failure(() => q.next());
    const fromClient = await failure(() => client.connect());
    expect(fromQuery?.type).toBe(AbortError.name);
    expect(fromClient).toEqual(fromQuery);
    expect([queryCli.isReady(), clientCli.isReady(), queryCli.written, clientCli.written]).toEqual([
      false,
      false,
      [],
      [],
    ]);
    // Afterwards, the controls say the session is not open: the same on both.
    expect(await failure(() => client.setModel("x"))).toEqual(await failure(() => q.setModel("x")));
  });
});
