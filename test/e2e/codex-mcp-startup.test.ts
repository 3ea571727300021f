/**
 * `codex app-server` answers `thread/start` at once and starts the thread's MCP servers in the
 * background: a turn sent before a server is ready reaches the model without that server's tools
 * (the model's call fails and the turn goes on without it). The session waits for every server's
 * final startup status before a turn (src/backends/codex/mcp-startup.ts); a server that fails to
 * start is a `codex_warning`, and the turn goes on. Against the real codex, offline.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Message, query } from "../../src/index.js";
import { CODEX_CLI_VERSION, codexBed, ECHO_MCP, results } from "./codex-support.js";

async function collect(q: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of q) out.push(m);
  return out;
}

describe(`codex ${CODEX_CLI_VERSION}: MCP servers start before the first turn`, () => {
  it("a server that takes 5 s to start has its tools in the first turn; one that cannot start is a warning", {
    timeout: 120_000,
  }, async () => {
    await using bed = await codexBed([
      { mcpCall: { server: "slow", tool: "echo", arguments: { text: "late" } } },
      { text: "done" },
    ]);
    // The server's own behaviour: it starts serving 5 s after it is spawned (codex answered
    // thread/start and sent the turn within ~1.5 s here before the session waited).
    const slow = join(bed.cwd, "slow-mcp.mjs");
    writeFileSync(slow, `setTimeout(() => import(${JSON.stringify(ECHO_MCP)}), 5000);\n`);
    const messages = await collect(
      query({
        prompt: "use the slow server",
        options: bed.options({
          mcpServers: {
            slow: { command: process.execPath, args: [slow] },
            broken: { command: join(bed.cwd, "no-such-server") },
          },
          // Codex's own startup bound (10 s by default) would fail a 5 s start on a loaded machine.
          codex: { config: { "mcp_servers.slow.startup_timeout_sec": 120 } },
        }),
      }),
    );
    expect(JSON.stringify(messages)).toContain("echo: late");
    const warnings = messages.filter((m) => m.type === "system" && m.subtype === "codex_warning");
    expect(JSON.stringify(warnings)).toMatch(/broken/);
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "done" });
    // The first request to the model already offered the slow server's tool.
    expect(JSON.stringify(bed.api.turnRequests[0]?.body)).toContain("slow");
  });
});
