/**
 * `canUseTool` for what the agent asks the *client* to do: run a command (`terminal/create`) or
 * write a file (`fs/write_text_file`). These requests carry no tool call of their own, so they are
 * put to `canUseTool` under their ACP method names:
 *
 * | toolName               | input                                                          |
 * | ---------------------- | -------------------------------------------------------------- |
 * | `"terminal/create"`    | `{ command, args, cwd, env }` (`cwd` as asked, else the session's; `env` the agent's additions) |
 * | `"fs/write_text_file"` | `{ file_path, path, content }` (`file_path` = `path`)          |
 *
 * An allow runs the request as the agent sent it (`updatedInput` is not applied, as for the agent's
 * own permission requests over ACP); a deny, a throw, a timeout or no callback at all refuses it
 * with a JSON-RPC error the agent sees (`-32600`, `data.reason: "permission-denied"`), and nothing
 * runs or is written.
 *
 * Asked once per action: when `canUseTool` has just allowed the agent's own permission request
 * (`session/request_permission`) for exactly this command (its `command` equal to the terminal's
 * command line, or its argv to the terminal's) or exactly this write (same path and content: the
 * input's, or the whole new file the call showed as a `diff` — an Edit's input holds only the
 * replaced strings), the client request it leads to is not put to `canUseTool` a second time. Each
 * such allow covers one request.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import type { RawObject } from "../../messages.js";
import type { CanUseTool } from "../../permissions.js";
import { askCanUseTool } from "./permissions.js";

/** `canUseTool`'s toolName for `terminal/create`. */
export const TERMINAL_TOOL_NAME = "terminal/create";
/** `canUseTool`'s toolName for `fs/write_text_file`. */
export const WRITE_TOOL_NAME = "fs/write_text_file";

/** How many allowed permission requests are remembered for the client requests they lead to. */
const MAX_GRANTS = 16;

/** What a terminal needs decided. */
export interface TerminalRequest {
  command: string;
  args: string[];
  /** As the agent asked, or the session's working directory. */
  cwd: string;
  env: Record<string, string>;
}

/** What a write needs decided. */
export interface WriteRequest {
  path: string;
  content: string;
}

/** How the gate asks. */
export interface ClientGateOptions {
  canUseTool: CanUseTool | undefined;
  /** How long `canUseTool` may take. */
  timeoutMs: number;
  /** Aborted when the running turn is cancelled (pending questions are abandoned). */
  turnSignal?: () => AbortSignal | undefined;
  /** Reports in-band why a decision could not be made (the callback threw, timed out, …). */
  report?: (data: Record<string, unknown>, raw: RawObject) => void;
}

/** Puts the client requests of one session to `canUseTool`. */
export class ClientGate {
  private grants: Record<string, unknown>[][] = [];

  constructor(private readonly options: ClientGateOptions) {}

  /**
   * Remembers that `canUseTool` allowed a permission request of the agent whose input is one of
   * `inputs` (the updated input alone when the decision carried one).
   */
  granted(inputs: readonly Record<string, unknown>[]): void {
    this.grants.push([...inputs]);
    if (this.grants.length > MAX_GRANTS) this.grants.shift();
  }

  /** Resolves once the terminal may start; throws the refusal for the agent otherwise. */
  async terminal(request: TerminalRequest, raw: RawObject, signal?: AbortSignal): Promise<void> {
    const argv = [request.command, ...request.args];
    const line = request.args.length === 0 ? request.command : undefined;
    if (this.consume((input) => sameCommand(input, line, argv))) return;
    const input = { command: request.command, args: request.args, cwd: request.cwd, env: request.env };
    await this.ask(TERMINAL_TOOL_NAME, input, `Run ${argv.join(" ")}`, raw, signal);
  }

  /** Resolves once the write may happen; throws the refusal for the agent otherwise. */
  async write(request: WriteRequest, raw: RawObject, signal?: AbortSignal): Promise<void> {
    if (this.consume((input) => pathOf(input) === request.path && input.content === request.content)) return;
    const input = { file_path: request.path, path: request.path, content: request.content };
    await this.ask(WRITE_TOOL_NAME, input, `Write ${request.path}`, raw, signal);
  }

  private consume(matches: (input: Record<string, unknown>) => boolean): boolean {
    const index = this.grants.findIndex((inputs) => inputs.some(matches));
    if (index === -1) return false;
    this.grants.splice(index, 1);
    return true;
  }

  /** Resolves when `canUseTool` allows; throws the refusal otherwise. */
  private async ask(
    toolName: string,
    input: Record<string, unknown>,
    title: string,
    raw: RawObject,
    signal?: AbortSignal,
  ): Promise<void> {
    const turn = this.options.turnSignal?.();
    const signals = [signal, turn].filter((s): s is AbortSignal => s !== undefined);
    const abort = signals.length > 0 ? AbortSignal.any(signals) : new AbortController().signal;
    const { decision, problem } = await askCanUseTool(
      this.options.canUseTool,
      { name: toolName, input, toolUseId: undefined, title },
      raw,
      abort,
      this.options.timeoutMs,
    );
    if (problem !== undefined)
      this.options.report?.({ tool_name: toolName, error: problem, answer: "refused" }, raw);
    if (decision.behavior === "allow" && !abort.aborted) return;
    const message =
      decision.behavior === "deny" && typeof decision.message === "string" && decision.message !== ""
        ? decision.message
        : "cancelled";
    throw RequestError.invalidRequest(
      { reason: "permission-denied", tool: toolName, message },
      `the client's canUseTool refused ${toolName}: ${message}`,
    );
  }
}

function pathOf(input: Record<string, unknown>): string | undefined {
  for (const key of ["file_path", "path", "filePath", "absolute_path", "abs_path"]) {
    const value = input[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** Whether an allowed tool input names exactly this command (as a line, or as an argv). */
function sameCommand(
  input: Record<string, unknown>,
  line: string | undefined,
  argv: readonly string[],
): boolean {
  const sameArgv = (value: unknown) =>
    Array.isArray(value) && value.length === argv.length && value.every((a, i) => a === argv[i]);
  if (line !== undefined && (input.command === line || input.cmd === line)) return true;
  return sameArgv(input.command) || sameArgv(input.argv) || sameArgv(input.cmd);
}
