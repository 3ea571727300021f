/** Exit codes of the `code-agent` command. */
export const ExitCode = {
  /** The run finished and its last result was a success. */
  Success: 0,
  /** The agent run failed (`result.isError`), the CLI crashed, or an install failed. */
  Failed: 1,
  /** Bad flags or options (also options the chosen backend cannot honour). */
  Usage: 2,
  /** The agent CLI was not found (`CliNotFoundError`); its install hint is printed. */
  CliNotFound: 3,
  /** Interrupted with Ctrl-C (SIGINT). */
  Interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
