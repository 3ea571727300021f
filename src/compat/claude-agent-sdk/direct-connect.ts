/**
 * The official SDK's "direct connect" exports (undeclared in its `.d.ts`): a transport to a
 * remote `claude server` over HTTP + WebSocket. This entry point drives a local CLI only, so
 * `DirectConnectTransport` exists and refuses to be built; the URL parser and the error class
 * behave as the official ones.
 */
import { AgentSdkError } from "../../errors.js";

/** A direct-connect failure; `code` says which (`unsupported` here for the transport itself). */
export class DirectConnectError extends AgentSdkError {
  /** Why, e.g. `session_create_failed`, `unsupported`; `undefined` when not classified. */
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

/** Where a direct-connect URL points: the server's origin and the token it carries, if any. */
export type DirectConnectTarget = { serverUrl: string; authToken: string | undefined };

/**
 * Parses `cc://host:port/<token>`, `http(s)://host:port` or a bare `host:port` as the official
 * SDK does; `cc+unix://` is refused with {@link DirectConnectError}. An unparsable URL throws the
 * URL parser's `TypeError`, as the official one does.
 */
export function parseDirectConnectUrl(url: string): DirectConnectTarget {
  if (url.startsWith("cc://")) {
    const parsed = new URL(`http://${url.slice("cc://".length)}`);
    return { serverUrl: `http://${parsed.host}`, authToken: parsed.pathname.slice(1) || undefined };
  }
  if (url.startsWith("cc+unix://")) {
    throw new DirectConnectError("Unix socket connect (cc+unix://) is not supported by the SDK transport");
  }
  const parsed = new URL(/^https?:\/\//i.test(url) ? url : `http://${url}`);
  return { serverUrl: `${parsed.protocol}//${parsed.host}`, authToken: undefined };
}

/**
 * The official SDK's transport to a remote `claude server`. Not available here: constructing it
 * throws {@link DirectConnectError} with `code: "unsupported"` (drive a local CLI through `query()`).
 */
export class DirectConnectTransport {
  constructor(_options?: unknown) {
    throw new DirectConnectError(
      "DirectConnectTransport (a remote `claude server` session) is not supported by code-agent-sdk/compat/claude-agent-sdk: it drives a local Claude Code CLI; use query()",
      "unsupported",
    );
  }
}
