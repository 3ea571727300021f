/**
 * The error for a turn whose `result` never came although the CLI's output ended cleanly (it
 * exited 0, or closed its output): without it the iteration would just stop, and a truncated
 * answer would pass for a complete one.
 */
import { ProcessError } from "../errors.js";
import type { Transport } from "../transport/transport.js";

/** What a transport may tell about its process once the output has ended (the subprocess one does). */
interface ExitReporting {
  exitInfo?(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  stderrTail?(): string;
}

/**
 * A {@link ProcessError} saying that `cliName` ended before the `result` of the pending turn, with
 * the process's exit status and stderr tail when `transport` knows them.
 */
export function missingResultError(cliName: string, transport: Transport): ProcessError {
  const reporting = transport as Transport & ExitReporting;
  const info = typeof reporting.exitInfo === "function" ? reporting.exitInfo() : undefined;
  const how =
    info === undefined
      ? "its output ended"
      : info.signal !== null
        ? `it was killed by signal ${info.signal}`
        : `it exited with code ${info.code}`;
  return new ProcessError(`${cliName} ended before the result of the pending turn: ${how} without one`, {
    exitCode: info?.code ?? null,
    signal: info?.signal ?? null,
    stderrTail: typeof reporting.stderrTail === "function" ? reporting.stderrTail() : "",
  });
}
