#!/usr/bin/env node
/**
 * The `code-agent` executable. See `code-agent --help`.
 */
import { runCli } from "./run.js";

// `code-agent … | head` closes stdout early: stop quietly instead of crashing on EPIPE.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; if a stray handle keeps the loop alive, do not hang.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`code-agent: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
