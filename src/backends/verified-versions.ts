/**
 * The oldest CLI releases `npm run test:versions` verified (every e2e query test passing); the SDK
 * warns once per executable when it meets an older one. Update together with docs/verification.md's
 * "Verified against" table when the matrix is re-run.
 */

/** Oldest Claude Code release verified: 2.0.77 fails 3 of the 15 query tests (see docs/verification.md). */
export const OLDEST_VERIFIED_CLAUDE = "2.1.100";

/** Oldest Codex release verified. */
export const OLDEST_VERIFIED_CODEX = "0.160.0";

/** When non-empty in the CLI's environment, no CLI version check is run (any backend). */
export const SKIP_VERSION_CHECK_ENV = "CODE_AGENT_SDK_SKIP_VERSION_CHECK";
