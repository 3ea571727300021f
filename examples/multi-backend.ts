/**
 * One piece of agent code, three CLIs: only `backend` changes. Backends whose CLI is not installed
 * are skipped (CliNotFoundError), and what a backend cannot do is a typed error, not a no-op.
 *   npx tsx examples/multi-backend.ts
 */
import { type BackendKind, CliNotFoundError, query, UnsupportedOptionsError } from "../src/index.js";

async function summarize(backend: BackendKind): Promise<string> {
  for await (const message of query({
    prompt: "Summarize this repository in one line.",
    options: { backend },
  })) {
    if (message.type === "result")
      return message.isError ? `failed: ${message.result}` : (message.result ?? "");
  }
  return "no result";
}

for (const backend of ["claude", "codex", "cursor"] as const) {
  try {
    console.log(`${backend}: ${await summarize(backend)}`);
  } catch (error) {
    if (error instanceof CliNotFoundError) console.log(`${backend}: skipped (CLI not installed)`);
    else throw error;
  }
}

// Capability errors are loud: Cursor has no system prompt. In TypeScript that is a compile-time
// error; from JavaScript, query() throws UnsupportedOptionsError before spawning anything.
try {
  // @ts-expect-error: `systemPrompt` is not an option of the cursor backend.
  for await (const _ of query({ prompt: "hi", options: { backend: "cursor", systemPrompt: "be brief" } })) {
  }
} catch (error) {
  if (!(error instanceof UnsupportedOptionsError)) throw error;
  console.log(`cursor refuses: ${error.options.join(", ")}`);
}
