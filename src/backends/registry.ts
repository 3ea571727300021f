/**
 * Picks the backend for `options.backend`.
 */
import { InvalidOptionsError } from "../errors.js";
import type { BackendKind } from "../options.js";
import type { Backend } from "./backend.js";
import { ClaudeBackend } from "./claude/backend.js";
import { CodexBackend } from "./codex/backend.js";
import { CursorBackend } from "./cursor/backend.js";

const factories: Record<BackendKind, (() => Backend) | undefined> = {
  claude: () => new ClaudeBackend(),
  codex: () => new CodexBackend(),
  cursor: () => new CursorBackend(),
};

/** Returns the backend for `kind` (default `"claude"`). */
export function getBackend(kind: BackendKind = "claude"): Backend {
  const factory = factories[kind];
  if (!factory) {
    throw new InvalidOptionsError([`backend: "${kind}" is not available in this version of code-agent-sdk`]);
  }
  return factory();
}
