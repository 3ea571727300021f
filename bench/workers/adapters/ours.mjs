/**
 * code-agent-sdk as a user runs it: `query()` from the built package (dist/, the code users get,
 * not tsx-transpiled sources), consumed with `for await`.
 */
import { pathToFileURL } from "node:url";
import { newCount, seeAssistant } from "./count.mjs";

const sdk = await import(pathToFileURL(process.env.BENCH_DIST).href);

/** The SDK entry point, for workers that need more than query() (error classes, backends). */
export { sdk };

/** True when this build has a Codex backend (it is being written while this bench exists). */
export function hasCodexBackend() {
  try {
    sdk.getBackend("codex");
    return true;
  } catch {
    return false;
  }
}

async function consume(options, prompt) {
  const count = newCount();
  for await (const message of sdk.query({ prompt, options })) {
    if (message.type === "assistant") {
      const block = message.content[0];
      seeAssistant(count, block?.type === "text" ? block.text.length : 0);
    } else {
      count.other += 1;
    }
  }
  return count;
}

/** Returns the runner for `backend`; the SDK itself was imported with this module. */
export async function load(backend) {
  return backend === "claude" ? claude : codex;
}

function claude({ cli, prompt, canUseTool, maxBufferSize }) {
  return consume(
    {
      cliPath: cli,
      ...(canUseTool ? { canUseTool } : {}),
      ...(maxBufferSize ? { maxBufferSize } : {}),
    },
    prompt,
  );
}

function codex({ cli, prompt, maxBufferSize }) {
  return consume({ backend: "codex", cliPath: cli, ...(maxBufferSize ? { maxBufferSize } : {}) }, prompt);
}
