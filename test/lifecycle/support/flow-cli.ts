/**
 * Options that run the flow stand-in CLI (test/fixtures/flow/flow-cli.mjs) as Claude or Codex.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll } from "vitest";
import type { CommonOptions, OptionsFor } from "../../../src/index.js";

const FLOW_CLI = fileURLToPath(new URL("../../fixtures/flow/flow-cli.mjs", import.meta.url));

let launchers: string | undefined;
// Made on first use, by whichever test of the file asks; removed after the file.
afterAll(() => {
  if (launchers !== undefined) rmSync(launchers, { recursive: true, force: true });
  launchers = undefined;
});

/** An executable named `name` that runs the stand-in (the Codex backend wants a `codex`). */
function launcher(name: string): string {
  launchers ??= mkdtempSync(join(tmpdir(), "cas-flow-bin-"));
  const path = join(launchers, name);
  writeFileSync(path, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(FLOW_CLI).href)});\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Options running the stand-in in `mode` for `backend`, with extra `FLOW_*` variables. */
export function flowCli<B extends "claude" | "codex">(
  backend: B,
  mode: string,
  env: Record<string, string> = {},
): OptionsFor<B> {
  const options: CommonOptions = {
    backend,
    cliPath: launcher(backend),
    env: { FLOW_MODE: mode, CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1", ...env },
  };
  return options as OptionsFor<B>;
}
