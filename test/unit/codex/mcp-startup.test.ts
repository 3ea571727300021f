import { describe, expect, it } from "vitest";
import { McpStartupGate, startingServers } from "../../../src/backends/codex/mcp-startup.js";

describe("McpStartupGate", () => {
  it("waits for the expected servers and for any reported starting, until each has a final status", async () => {
    const gate = new McpStartupGate(["a"]);
    gate.update({ name: "b", status: "starting" });
    let settled = false;
    const wait = gate.settledWithin(60_000).then(() => {
      settled = true;
    });
    gate.update({ name: "a", status: "ready" });
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(gate.pending()).toEqual(["b"]);
    gate.update({ name: "b", status: "failed" });
    await wait;
    expect(settled).toBe(true);
    // A late "starting" for a settled server does not reopen the wait.
    gate.update({ name: "b", status: "starting" });
    expect(gate.pending()).toEqual([]);
  });

  it("ignores malformed notifications; the wait ends on abort or at the bound", async () => {
    const gate = new McpStartupGate(["a"]);
    gate.update(null);
    gate.update({ name: 1, status: "ready" });
    gate.update({ name: "a" });
    expect(gate.pending()).toEqual(["a"]);
    const abort = new AbortController();
    const waiting = gate.settledWithin(60_000, abort.signal);
    abort.abort();
    await waiting;
    await gate.settledWithin(1);
    expect(gate.pending()).toEqual(["a"]);
  });

  it("with nothing starting resolves at once", async () => {
    await new McpStartupGate([]).settledWithin(60_000);
  });
});

describe("startingServers", () => {
  it("names the servers that became tables, not one switched off or one Codex cannot run", () => {
    const mcpServers = { echo: {}, "my server": {}, off: {}, sdk: { type: "sdk" } };
    const config = {
      "mcp_servers.echo": { command: "node" },
      'mcp_servers."my server"': { command: "node" },
      "mcp_servers.off": { command: "node", enabled: false },
    };
    expect(startingServers(mcpServers, config)).toEqual(["echo", "my server"]);
    expect(startingServers("servers.json", config)).toEqual([]);
    expect(startingServers(mcpServers, undefined)).toEqual([]);
  });
});
