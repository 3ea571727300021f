/**
 * The `providerMetadata` this provider attaches to what it returns, and reads back from the
 * `providerOptions` of earlier assistant messages (the AI SDK carries part metadata into the
 * messages it builds, and `useChat` keeps it in UI messages).
 */
import type { BackendKind } from "../options.js";

/** The key of this provider's entry in `providerMetadata` / `providerOptions`. */
export const METADATA_KEY = "codeAgent";

/** What each returned part carries under `providerMetadata.codeAgent`: the session to resume. */
export interface CodeAgentPartMetadata {
  [key: string]: string;
  /** The CLI session (thread, chat) the part came from. */
  sessionId: string;
  /** The backend that session belongs to. */
  backend: BackendKind;
}

/** The session recorded on a part's `providerOptions`, when it carries one of ours. */
export function sessionOf(
  providerOptions: Record<string, unknown> | undefined,
): { sessionId: string; backend: string } | undefined {
  const entry = providerOptions?.[METADATA_KEY];
  if (typeof entry !== "object" || entry === null) return undefined;
  const { sessionId, backend } = entry as Record<string, unknown>;
  if (typeof sessionId !== "string" || sessionId === "" || typeof backend !== "string") return undefined;
  return { sessionId, backend };
}
