/**
 * The ACP backpressure measurement (backpressure.test.ts), one reader per Node process: the
 * stand-in ACP agent (test/fixtures/flow/flow-acp-agent.mjs) floods FLOW_BYTES of `session/update`s
 * to a consumer that takes the first one, sleeps `SLEEP_MS`, then stops (what a reader holds is
 * what it read ahead of its consumer meanwhile; draining at full speed afterwards would measure the
 * garbage collector, not backpressure).
 *
 * Usage: node --unhandled-rejections=strict --import tsx acp-flood.mts raw|ours
 * - `raw`: the floor, a readline loop over the agent's stdout (readline's async iterator pauses the
 *   pipe while its queue is full), in a process that has imported the SDK all the same, so both
 *   start from the same footprint;
 * - `ours`: `query()` on the ACP backend, consumed with `for await`.
 * Prints one JSON line: peak RSS, RSS before the run, updates taken, how the turn ended, the agent's pid
 * and (ours) the ms from the consumer's `break` to the end of its loop (the session closing).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const AGENT = fileURLToPath(new URL("../../fixtures/flow/flow-acp-agent.mjs", import.meta.url));
const sleepMs = Number(process.env.SLEEP_MS ?? 5_000);
const sleep = () => new Promise((resolve) => setTimeout(resolve, sleepMs));

async function raw(): Promise<{ taken: number; end: string; pid: number | undefined }> {
  const child = spawn(process.execPath, [AGENT], { stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.on("error", () => undefined);
  const send = (obj: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...obj })}\n`);
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
  let taken = 0;
  let end = "eof";
  send({ id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  try {
    for await (const line of lines) {
      const message = JSON.parse(line) as { id?: number; method?: string; result?: { sessionId?: string } };
      if (message.id === 0)
        send({ id: 1, method: "session/new", params: { cwd: process.cwd(), mcpServers: [] } });
      else if (message.id === 1) {
        const sessionId = message.result?.sessionId;
        send({
          id: 2,
          method: "session/prompt",
          params: { sessionId, prompt: [{ type: "text", text: "flood" }] },
        });
      } else if (message.id === 2) {
        end = "answered";
        break;
      } else if (message.method === "session/update" && ++taken === 1) {
        await sleep();
        end = "stopped";
        break;
      }
    }
  } finally {
    child.stdin.end();
    child.kill("SIGKILL");
    await once(child, "exit").catch(() => undefined);
  }
  return { taken, end, pid: child.pid };
}

async function ours(): Promise<{ taken: number; end: string; pid: number | undefined; settleMs?: number }> {
  const { query } = await import("../../../src/index.js");
  let taken = 0;
  let end = "no result";
  const q = query({
    prompt: "flood",
    options: { backend: "acp", acp: { command: process.execPath, args: [AGENT] } },
  });
  let stoppedAt: number | undefined;
  for await (const message of q) {
    if (message.type === "assistant" && ++taken === 1) {
      await sleep();
      end = "stopped";
      stoppedAt = performance.now();
      break;
    }
    if (message.type === "result") end = message.subtype;
  }
  // From the consumer's `break` to the loop's end: the iterator's return() closing the session.
  const settleMs = stoppedAt === undefined ? undefined : Math.round(performance.now() - stoppedAt);
  return { taken, end, pid: q.pid, settleMs };
}

// Both pay the same import cost before the clock starts.
await import("../../../src/index.js");
const mode = process.argv[2];
const rssBefore = process.memoryUsage.rss();
const outcome = mode === "raw" ? await raw() : mode === "ours" ? await ours() : undefined;
if (!outcome) throw new Error(`unknown mode ${mode}`);
const peakRss = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  `${JSON.stringify({ ...outcome, peakRssMB: peakRss / 2 ** 20, rssBeforeMB: rssBefore / 2 ** 20 })}\n`,
);
