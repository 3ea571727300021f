/**
 * A worker whose Redis stops answering while it starts (after the first PING, before its
 * subscription is confirmed): `AgentWorker.start()` must reject with a typed error within a bound,
 * close what it opened, and never throw from an event handler. The "Redis" is a loopback server
 * speaking just enough RESP to answer one connection's handshake and PING, then nothing at all (as
 * a SIGSTOPped redis-server: the kernel still accepts connections). No redis-server needed.
 */
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { QueueConnectionError } from "../../src/queue/errors.js";
import { AgentWorker } from "../../src/queue/index.js";
import { until } from "./support/workers.js";

/** Complete RESP arrays at the start of `text` (as a client sends commands): their names, and the rest. */
function commandNames(text: string): { names: string[]; rest: string } {
  const names: string[] = [];
  let at = 0;
  for (;;) {
    const header = /^\*(\d+)\r\n/.exec(text.slice(at));
    if (!header) break;
    let pos = at + header[0].length;
    const parts: string[] = [];
    for (let i = 0; i < Number(header[1]); i++) {
      const bulk = /^\$(\d+)\r\n/.exec(text.slice(pos));
      if (!bulk) return { names, rest: text.slice(at) };
      const start = pos + bulk[0].length;
      if (text.length < start + Number(bulk[1]) + 2) return { names, rest: text.slice(at) };
      parts.push(text.slice(start, start + Number(bulk[1])));
      pos = start + Number(bulk[1]) + 2;
    }
    names.push((parts[0] ?? "").toLowerCase());
    at = pos;
  }
  return { names, rest: text.slice(at) };
}

/** A server that answers until it has answered one PING, then falls silent on every connection. */
async function fallsSilentAfterFirstPing() {
  let silent = false;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let pending = "";
    socket.setEncoding("latin1").on("data", (chunk: string) => {
      const { names, rest } = commandNames(pending + chunk);
      pending = rest;
      for (const name of names) {
        if (silent) return;
        if (name === "ping") {
          socket.write("+PONG\r\n");
          silent = true;
        } else if (name === "info") {
          const info = "# Server\r\nredis_version:7.0.15\r\nloading:0\r\n";
          socket.write(`$${info.length}\r\n${info}\r\n`);
        } else socket.write("+OK\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    /** Connections open now. */
    get open() {
      return sockets.size;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("AgentWorker.start() when Redis stops answering mid-start", () => {
  it("rejects with QueueConnectionError within a bound and leaves nothing running", async () => {
    const redis = await fallsSilentAfterFirstPing();
    const reported: Error[] = [];
    try {
      const started = performance.now();
      const error = await AgentWorker.start({
        connection: redis.url,
        responseTimeoutMs: 300,
        reconnectTimeoutMs: 1_000,
        onError: (e) => reported.push(e),
      }).then(
        (worker) => worker,
        (e: unknown) => e,
      );
      const ms = performance.now() - started;
      expect(error).toBeInstanceOf(QueueConnectionError);
      expect(error).toMatchObject({ operation: "starting the worker" });
      // Silent 300 ms → reconnecting (each attempt silent as long) → given up after 1 s; generous
      // for a loaded machine, far below a hang.
      expect(ms).toBeLessThan(15_000);
      expect(reported.every((e) => e.name.startsWith("Queue"))).toBe(true);
      // Nothing it opened is left: its connections are closed (the server sees none).
      await until(() => redis.open === 0, "the worker's connections to close", 5_000);
    } finally {
      await redis.close();
    }
  });
});
