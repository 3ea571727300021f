/**
 * The options as the library's own modules read them. The public `AgentOptions` is a union typed
 * per backend, so reading a Claude-only field off it does not compile; inside the library the
 * options travel as {@link ResolvedOptions}: every field of every backend, all optional. Which
 * fields a backend actually honours was settled by its validation (`OPTION_SUPPORT`), before
 * anything reads them. Not exported from the package root.
 */
import type {
  AcpAgentOptions,
  AgentOptions,
  BackendKind,
  ClaudeAgentOptions,
  CodexAgentOptions,
  CursorAgentOptions,
} from "../options.js";

/**
 * Every option of every backend, all optional, with `backend` any {@link BackendKind}. Each
 * per-backend option type (and so `AgentOptions`) is assignable to it without a cast.
 */
export interface ResolvedOptions
  extends Omit<ClaudeAgentOptions, "backend">,
    Omit<CodexAgentOptions, "backend">,
    Omit<CursorAgentOptions, "backend">,
    Omit<AcpAgentOptions, "backend"> {
  /** Which CLI drives the session (omitted: Claude). */
  backend?: BackendKind;
}

/**
 * The public options as internal code reads them (see {@link ResolvedOptions}); `undefined` is an
 * empty options object. Call it once the backend's validation accepted the options.
 */
export function resolveOptions(options: AgentOptions | undefined): ResolvedOptions {
  return options ?? {};
}
