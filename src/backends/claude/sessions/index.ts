/**
 * Session helpers: list, read, rename, tag, delete and fork the sessions Claude Code stores on disk
 * (`~/.claude/projects/`), like the official SDK's helpers of the same names.
 *
 * @module
 */
export { archiveSession, unarchiveSession } from "./archive.js";
export { type ImportSessionToStoreOptions, importSessionToStore } from "./import.js";
export { getSessionInfo, listSessions } from "./info.js";
export { InMemorySessionStore } from "./memory-store.js";
export { deleteSession, forkSession, renameSession, tagSession } from "./mutate.js";
export { encodeProjectDir } from "./store.js";
export type * from "./store-types.js";
export { foldSessionSummary } from "./summary.js";
export { getSessionMessages, getSubagentMessages, listSubagents } from "./transcript.js";
export type * from "./types.js";
