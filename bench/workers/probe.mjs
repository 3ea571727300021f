/**
 * What the built SDK offers before any scenario runs: its version, and whether it has a Codex
 * backend yet (the Codex scenarios report "n/a: backend not available" for ours otherwise).
 */
import { hasCodexBackend, sdk } from "./adapters/ours.mjs";
import { guard, report } from "./common.mjs";

await guard(async () => {
  report({ version: sdk.SDK_VERSION, codexBackend: hasCodexBackend() });
});
