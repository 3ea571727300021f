/**
 * What every backend's `openSession` does alike: which initial prompt can go out at open time, how
 * the CLI process is configured from the options, and closing a session whose opening failed.
 */
import { isStreamedPrompt, type Prompt, type StreamedUserInput } from "../prompt.js";
import { DEFAULT_MAX_BUFFER_SIZE, SubprocessTransport } from "../transport/subprocess.js";

/**
 * The initial prompt when it is one turn (a string or content blocks). An `AsyncIterable` prompt
 * gives `undefined`: it is streamed by the caller once the session is open.
 */
export function singleInitialPrompt(params: {
  initialPrompt?: Prompt | undefined;
}): Exclude<Prompt, AsyncIterable<StreamedUserInput>> | undefined {
  const prompt = params.initialPrompt;
  return prompt !== undefined && !isStreamedPrompt(prompt) ? prompt : undefined;
}

/**
 * Runs `setUp` (connect, handshake, first turn) on a new session and returns the session. If
 * `setUp` fails, the session is closed before the error propagates, so a failed open leaves no
 * process running.
 */
export async function openOrClose<S extends { close(): Promise<void> }>(
  session: S,
  setUp: () => Promise<void>,
): Promise<S> {
  try {
    await setUp();
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
}

/** What differs between the CLI processes of the backends. */
export interface CliProcessSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The CLI's name in errors, e.g. `claude`. */
  cliName: string;
  stdin?: "pipe" | "ignore";
  uid?: number;
  gid?: number;
  /** How to pass what does not fit in argv, for the error when it is too long (E2BIG). */
  argvTooLongHint?: string;
}

/** The options {@link cliTransport} reads (`AgentOptions`' fields of the same names). */
export interface CliTransportOptions {
  cwd?: string | undefined;
  stderr?: ((line: string) => void) | undefined;
  maxBufferSize?: number | undefined;
  closeGraceMs?: number | undefined;
}

/**
 * A not yet connected transport for one CLI process: `spec`, in `options.cwd` (default: the current
 * directory), with the `stderr` callback, `maxBufferSize` and `closeGraceMs` of `options`.
 */
export function cliTransport(options: CliTransportOptions, spec: CliProcessSpec): SubprocessTransport {
  return new SubprocessTransport({
    ...spec,
    cwd: options.cwd ?? process.cwd(),
    ...(options.stderr ? { onStderrLine: options.stderr } : {}),
    maxBufferSize: options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
    ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
  });
}
