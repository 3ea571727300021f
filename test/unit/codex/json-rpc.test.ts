/**
 * The JSON-RPC connection used for `codex app-server`: routing by direction, timeouts, errors, and
 * what pending requests see when the process dies.
 */
import { describe, expect, it } from "vitest";
import {
  JsonRpcConnection,
  JsonRpcError,
  type JsonRpcHandlers,
} from "../../../src/backends/codex/json-rpc.js";
import { ControlRequestError, ControlTimeoutError, ProcessError } from "../../../src/index.js";
import { JsonDecodeError } from "../../../src/transport/index.js";
import { FakeTransport } from "./fake-transport.js";

interface Recorded {
  notifications: [string, unknown][];
  requests: [string, unknown, unknown][];
  malformed: JsonDecodeError[];
  stray: unknown[];
  ended: unknown[];
}

function connect(
  onRequest: JsonRpcHandlers["onRequest"] = async () => ({}),
  timeoutMs = 5_000,
): { t: FakeTransport; rpc: JsonRpcConnection; seen: Recorded } {
  const t = new FakeTransport();
  const seen: Recorded = { notifications: [], requests: [], malformed: [], stray: [], ended: [] };
  const rpc = new JsonRpcConnection(
    t,
    {
      onNotification: (method, params) => seen.notifications.push([method, params]),
      onRequest: (method, params, id, signal) => {
        seen.requests.push([method, params, id]);
        return onRequest(method, params, id, signal);
      },
      onMalformedLine: (e) => seen.malformed.push(e),
      onStrayLine: (raw) => seen.stray.push(raw),
      onEnd: (e) => seen.ended.push(e),
    },
    timeoutMs,
  );
  rpc.start();
  return { t, rpc, seen };
}

describe("JsonRpcConnection", () => {
  it("tells the server's request 0 from the response to our request 0 by direction", async () => {
    const { t, rpc, seen } = connect(async () => ({ decision: "accept" }));
    const ours = rpc.request("turn/start", { threadId: "t" });
    await t.waitForSent((m) => m.method === "turn/start");
    expect(t.sent[0]).toEqual({ jsonrpc: "2.0", id: 0, method: "turn/start", params: { threadId: "t" } });

    // The server asks us something with the same id before it answers.
    t.emit({ id: 0, method: "item/commandExecution/requestApproval", params: { itemId: "call_1" } });
    const answer = await t.waitForSent((m) => m.id === 0 && "result" in m);
    expect(answer).toEqual({ jsonrpc: "2.0", id: 0, result: { decision: "accept" } });
    expect(seen.requests).toEqual([["item/commandExecution/requestApproval", { itemId: "call_1" }, 0]]);

    let settled = false;
    void ours.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);

    t.emit({ id: 0, result: { turn: { id: "turn-1" } } });
    await expect(ours).resolves.toEqual({ turn: { id: "turn-1" } });
  });

  it("numbers its own requests from 0 and sends notifications without an id", async () => {
    const { t, rpc } = connect();
    const pending = [rpc.request("initialize", {}).catch(() => undefined)];
    await rpc.notify("initialized");
    pending.push(rpc.request("thread/start", { cwd: "/" }).catch(() => undefined));
    await t.waitForSent((m) => m.method === "thread/start");
    expect(t.sent).toEqual([
      { jsonrpc: "2.0", id: 0, method: "initialize", params: {} },
      { jsonrpc: "2.0", method: "initialized" },
      { jsonrpc: "2.0", id: 1, method: "thread/start", params: { cwd: "/" } },
    ]);
    rpc.shutdown();
    await Promise.all(pending);
  });

  it("delivers notifications in order", async () => {
    const { t, seen } = connect();
    t.emit({ method: "turn/started", params: { turn: { id: "a" } } });
    t.emit({ method: "item/started", params: { item: { id: "b" } } });
    t.finish();
    await new Promise((r) => setTimeout(r, 0));
    expect(seen.notifications).toEqual([
      ["turn/started", { turn: { id: "a" } }],
      ["item/started", { item: { id: "b" } }],
    ]);
    expect(seen.ended).toEqual([undefined]);
  });

  it("turns an error response into a ControlRequestError naming the method and code", async () => {
    const { t, rpc } = connect();
    const request = rpc.request("thread/start", { approvalPolicy: "on-failure" });
    t.emit({ id: 0, error: { code: -32600, message: "Invalid request: unknown variant `on-failure`" } });
    const error = await request.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlRequestError);
    expect(error).toMatchObject({ subtype: "thread/start", code: "-32600" });
    expect((error as Error).message).toContain("unknown variant `on-failure`");
  });

  it("times a request out with a ControlTimeoutError naming the method", async () => {
    const { rpc } = connect(undefined, 20);
    const error = await rpc.request("turn/interrupt", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlTimeoutError);
    expect(error).toMatchObject({ subtype: "turn/interrupt", timeoutMs: 20 });
  });

  it("fails pending requests with the process's error when it dies, and later ones at once", async () => {
    const { t, rpc, seen } = connect();
    const pending = rpc.request("turn/start", {});
    const death = new ProcessError("codex process failed: exit code 1", { exitCode: 1, stderrTail: "boom" });
    t.finish(death);
    await expect(pending).rejects.toBe(death);
    await expect(rpc.request("turn/start", {})).rejects.toBe(death);
    expect(seen.ended).toEqual([death]);
  });

  it("answers a handler's JsonRpcError with its code and any other exception with -32603", async () => {
    const { t } = connect(async (method) => {
      if (method === "item/tool/call") throw new JsonRpcError(-32601, "not here");
      throw new Error("callback broke");
    });
    t.emit({ id: 7, method: "item/tool/call", params: {} });
    t.emit({ id: "x", method: "attestation/generate", params: {} });
    expect(await t.waitForSent((m) => m.id === 7)).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32601, message: "not here" },
    });
    expect(await t.waitForSent((m) => m.id === "x")).toEqual({
      jsonrpc: "2.0",
      id: "x",
      error: { code: -32603, message: "callback broke" },
    });
  });

  it("aborts the signal of a running handler when the server no longer needs the answer", async () => {
    let signal: AbortSignal | undefined;
    const { t, rpc } = connect(
      (_m, _p, _id, s) =>
        new Promise((resolve) => {
          signal = s;
          s.addEventListener("abort", () => resolve({ decision: "decline" }));
        }),
    );
    t.emit({ id: 3, method: "item/fileChange/requestApproval", params: {} });
    await new Promise((r) => setTimeout(r, 0));
    rpc.cancelIncoming(3, new Error("resolved"));
    expect(signal?.aborted).toBe(true);
    expect(await t.waitForSent((m) => m.id === 3)).toMatchObject({ result: { decision: "decline" } });
  });

  it("reports malformed lines and stray responses without ending the session", async () => {
    const { t, rpc, seen } = connect();
    t.emit(new JsonDecodeError("Line from the CLI is not valid JSON", "{oops"));
    t.emit({ id: 99, result: {} });
    const ok = rpc.request("initialize", {});
    t.emit({ id: 0, result: { userAgent: "codex" } });
    await expect(ok).resolves.toEqual({ userAgent: "codex" });
    expect(seen.malformed).toHaveLength(1);
    expect(seen.stray).toEqual([{ id: 99, result: {} }]);
  });
});
