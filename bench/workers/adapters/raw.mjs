/**
 * The raw floor: spawn the CLI, split stdout on "\n", JSON.parse each line. No validation, no
 * message model, no lifecycle management: the least any SDK has to do with the same bytes. For
 * Claude it also writes the initialize request and the user message (without waiting for the
 * handshake) and answers can_use_tool requests, so the floor speaks the same protocol.
 */
import { spawn } from "node:child_process";
import { newCount, seeAssistant } from "./count.mjs";

/** Returns the floor's runner for `backend`; nothing to import. */
export async function load(backend) {
  return backend === "claude" ? claude : codex;
}

const CLAUDE_ARGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];
/** `codex exec` as the floors run it. */
export const CODEX_ARGS = ["exec", "--json", "--skip-git-repo-check"];

/**
 * Spawns the Claude CLI and writes the initialize request and the user message at once (without
 * waiting for the handshake); returns the child and a writer of further lines.
 */
export function startClaude(cli, prompt) {
  const child = spawn(cli, CLAUDE_ARGS, { stdio: ["pipe", "pipe", "ignore"] });
  const send = (obj) => child.stdin.write(`${JSON.stringify(obj)}\n`);
  send({ type: "control_request", request_id: "init-1", request: { subtype: "initialize", hooks: null } });
  send({
    type: "user",
    message: { role: "user", content: prompt },
    parent_tool_use_id: null,
    session_id: "default",
  });
  return { child, send };
}

/**
 * A `data` handler that calls `onObject` with each complete line parsed. Works on Buffers so a
 * huge line costs one concat, not a quadratic string rebuild.
 */
function jsonLines(onObject) {
  let pending = [];
  return (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      let line;
      if (pending.length > 0) {
        pending.push(chunk.subarray(start, nl));
        line = Buffer.concat(pending).toString("utf8");
        pending = [];
      } else {
        line = chunk.toString("utf8", start, nl);
      }
      if (line.length > 0) onObject(JSON.parse(line));
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  };
}

/** Resolves when the child has exited and its pipes closed; rejects on a failure exit. */
export function closed(child) {
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`fake CLI exited with ${signal ?? code}`)),
    );
  });
}

async function claude({ cli, prompt }) {
  const count = newCount();
  const { child, send } = startClaude(cli, prompt);
  child.stdout.on(
    "data",
    jsonLines((msg) => {
      switch (msg.type) {
        case "assistant":
          seeAssistant(count, msg.message.content[0].text.length);
          return;
        case "control_request":
          if (msg.request.subtype === "can_use_tool") {
            send({
              type: "control_response",
              response: {
                subtype: "success",
                request_id: msg.request_id,
                response: { behavior: "allow", updatedInput: msg.request.input },
              },
            });
          }
          return;
        case "result":
          count.other += 1;
          child.stdin.end();
          return;
        default:
          count.other += 1;
      }
    }),
  );
  await closed(child);
  return count;
}

async function codex({ cli, prompt }) {
  const count = newCount();
  const child = spawn(cli, CODEX_ARGS, { stdio: ["pipe", "pipe", "ignore"] });
  child.stdout.on(
    "data",
    jsonLines((event) => {
      if (event.type === "item.completed" && event.item.type === "agent_message") {
        seeAssistant(count, event.item.text.length);
      } else {
        count.other += 1;
      }
    }),
  );
  const done = closed(child);
  child.stdin.end(prompt);
  await done;
  return count;
}
