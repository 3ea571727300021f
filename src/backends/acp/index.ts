/**
 * `code-agent-sdk/acp`: what only the ACP backend has. {@link listSessions} lists the sessions an
 * agent knows through its `session/list`, where the agent declares it. Forking a session is an
 * option of `query()` (`resume` with `forkSession: true`), and the options themselves are
 * {@link AcpAgentOptions} (also in the root entry).
 *
 * @example
 * ```ts
 * import { listSessions } from "code-agent-sdk/acp";
 * const [latest] = await listSessions({ acp: { agent: "opencode" }, dir: process.cwd(), limit: 1 });
 * if (latest) console.log(latest.sessionId, latest.title);
 * ```
 * @packageDocumentation
 */
export { MessageParseError } from "../../errors.js";
export type { AcpAgentOptions, AcpOptions } from "../../options.js";
export { type AcpListSessionsOptions, listSessions } from "./list-sessions.js";
export { type AcpSessionInfo, DEFAULT_ACP_LIST_LIMIT, MAX_ACP_LIST_PAGES } from "./session-list.js";
