/**
 * The iterated floor: what a consumer pays when it reads the CLI the way a streaming API is read —
 * spawn, `node:readline` over stdout, `for await` over the lines, `JSON.parse` each. Same protocol
 * as raw.mjs (which hands each parsed line to a synchronous callback from the `data` event, with no
 * promise per line: a floor no `AsyncIterable` API can reach). The throughput scenarios report ours
 * against both, so the per-line cost of async iteration itself is visible.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { newCount, seeAssistant } from "./count.mjs";
import { CODEX_ARGS, closed, startClaude } from "./raw.mjs";

/** Returns the iterated floor's runner for `backend`; nothing to import. */
export async function load(backend) {
  return backend === "claude" ? claude : codex;
}

async function claude({ cli, prompt }) {
  const count = newCount();
  const { child } = startClaude(cli, prompt);
  const exit = closed(child);
  exit.catch(() => undefined); // awaited after the loop; a failure exit must not count as unhandled meanwhile
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (line.length === 0) continue;
    const msg = JSON.parse(line);
    if (msg.type === "assistant") seeAssistant(count, msg.message.content[0].text.length);
    else if (msg.type === "result") {
      count.other += 1;
      child.stdin.end();
    } else count.other += 1;
  }
  await exit;
  return count;
}

async function codex({ cli, prompt }) {
  const count = newCount();
  const child = spawn(cli, CODEX_ARGS, { stdio: ["pipe", "pipe", "ignore"] });
  const exit = closed(child);
  exit.catch(() => undefined); // awaited after the loop; a failure exit must not count as unhandled meanwhile
  child.stdin.end(prompt);
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (line.length === 0) continue;
    const event = JSON.parse(line);
    if (event.type === "item.completed" && event.item.type === "agent_message")
      seeAssistant(count, event.item.text.length);
    else count.other += 1;
  }
  await exit;
  return count;
}
