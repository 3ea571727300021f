/**
 * The official SDK's error wording on this engine's typed errors, where callers of the official
 * SDK match it: a missing executable and a CLI that exits non-zero or is killed. The classes stay
 * this SDK's (`CliNotFoundError` with `code: "ENOENT"`, `ProcessError` with `exitCode`, `signal`,
 * `stderrTail`); only the message is the official one.
 */
import { CliNotFoundError, OutputClosedError, ProcessError } from "../../errors.js";

/** `error` with the official message where the official SDK has one for the same failure. */
export function withOfficialMessage(error: unknown): unknown {
  try {
    if (error instanceof CliNotFoundError) {
      const [only] = error.searched;
      // An explicit pathToClaudeCodeExecutable is the one place searched (the variable is listed as `$NAME=…`).
      if (error.searched.length === 1 && only !== undefined && !only.startsWith("$")) {
        error.message = `Claude Code native binary not found at ${only}. Please ensure Claude Code is installed via native installer or specify a valid path with options.pathToClaudeCodeExecutable.`;
      }
      return error;
    }
    if (error instanceof ProcessError && !(error instanceof OutputClosedError)) {
      const tail = error.stderrTail.trim();
      const stderr = tail ? `. stderr: ${tail}` : "";
      if (error.exitCode !== null && error.exitCode !== 0) {
        error.message = `Claude Code process exited with code ${error.exitCode}${stderr}`;
      } else if (error.signal !== null) {
        error.message = `Claude Code process terminated by signal ${error.signal}${stderr}`;
      }
    }
  } catch {
    // A frozen or exotic error keeps its own message.
  }
  return error;
}
