/**
 * Shared set-up for end-to-end tests: the real `claude` binary from the npm platform package,
 * driven offline against the shipped scripted model server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import {
  type AgentSdkClient,
  type ClaudeAgentOptions,
  type Message,
  NotConnectedError,
  ProcessError,
  type ResultMessage,
} from "../../src/index.js";
import { type FakeAnthropicServer, type ScriptedTurn, startFakeAnthropic } from "../../src/testing/index.js";

export { isAlive } from "../lifecycle/support/processes.js";

/** The Claude Code version these tests were written and run against; `npm run test:versions`
 * runs them against other releases with `CODE_AGENT_TEST_CLAUDE_VERSION` set (and the CLI path variable naming the binary). */
export const CLAUDE_CLI_VERSION = process.env.CODE_AGENT_TEST_CLAUDE_VERSION ?? "2.1.330";

/** A scripted model plus a scratch workspace; dispose with `await using`. */
export interface Bed extends AsyncDisposable {
  model: FakeAnthropicServer;
  cwd: string;
  /** Options that point the CLI at the fake model, in the scratch workspace. */
  options(extra?: ClaudeAgentOptions): ClaudeAgentOptions;
}

export async function testBed(turns: ScriptedTurn[] = []): Promise<Bed> {
  const model = await startFakeAnthropic({ turns });
  const cwd = mkdtempSync(join(tmpdir(), "cas-e2e-"));
  return {
    model,
    cwd,
    options: (extra = {}) => ({ cwd, ...extra, env: { ...model.env(), ...extra.env } }),
    async [Symbol.asyncDispose]() {
      await model.close();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** Reads `messages` to the end: what arrived, and the error that ended them (if any). */
export async function outcome(
  messages: AsyncIterable<Message>,
): Promise<{ seen: Message[]; error: unknown }> {
  const seen: Message[] = [];
  try {
    for await (const m of messages) seen.push(m);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

/** Drains an async iterable of messages. */
export async function collect(messages: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

export function results(messages: Message[]): ResultMessage[] {
  return messages.filter((m): m is ResultMessage => m.type === "result");
}

/** Text of every assistant message, joined. */
export function assistantText(messages: Message[]): string {
  return messages
    .flatMap((m) => (m.type === "assistant" ? m.content : []))
    .map((b) => (b.type === "text" ? b.text : ""))
    .join("");
}

/**
 * A scripted turn for sessions with a subagent: "delegate please" starts a foreground `Task` (a
 * background agent's completion would start a turn of its own), the subagent answers "hi from
 * subagent", a prompt containing one of `replies`' keys gets its value, anything else "Main done.".
 * The subagent's request and the main thread's follow-up are told apart by their content.
 */
export function delegatingTurn(replies: Record<string, string> = {}): ScriptedTurn {
  return (request) => {
    const text = request.lastUserText;
    if (text.includes("delegate please")) {
      return {
        toolUse: {
          name: "Task",
          input: {
            description: "Greet",
            prompt: "Say hi from the subagent",
            subagent_type: "general-purpose",
            run_in_background: false,
          },
        },
      };
    }
    if (text.includes("Say hi from the subagent")) return { text: "hi from subagent" };
    for (const [prompt, answer] of Object.entries(replies))
      if (text.includes(prompt)) return { text: answer };
    return { text: "Main done." };
  };
}

/**
 * A connected client whose CLI is killed (SIGKILL) while `run()` waits on a stalled model turn:
 * that run rejects with the `ProcessError`, `isConnected` turns false, the next `run()` and
 * `query()` reject with `NotConnectedError` whose `cause` is that error (not `UnreadResponseError`),
 * and once `connect()` has started a new process, `run()` answers again ("back").
 *
 * @param model The fake model the client talks to: its next turn is stalled when this is called,
 *   and the reply to "after reconnect" is pushed (without `push`, the model answers it "back" itself).
 */
export async function expectRecoveryAfterCrash(
  client: AgentSdkClient,
  model: {
    waitForRequest(predicate: (request: { lastUserText: string }) => boolean): Promise<unknown>;
    push?(turn: { text: string }): void;
  },
): Promise<void> {
  await client.connect();
  const running = client.run("hang here");
  await model.waitForRequest((r) => r.lastUserText.includes("hang here"));
  process.kill(client.pid ?? 0, "SIGKILL");
  const ended = await running.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(ended).toBeInstanceOf(ProcessError);
  expect(client.isConnected).toBe(false);
  for (const next of [client.run("again"), client.query("again")]) {
    const error = await next.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotConnectedError);
    expect((error as NotConnectedError).cause).toBe(ended);
  }
  model.push?.({ text: "back" });
  await client.connect();
  expect(client.isConnected).toBe(true);
  expect((await client.run("after reconnect")).text).toBe("back");
}
