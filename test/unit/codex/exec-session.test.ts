/**
 * The one-shot exec session against an in-memory stand-in for `codex exec --json`, replaying
 * codex 0.169.0 captures.
 */
import { describe, expect, it } from "vitest";
import { ExecEventMapper } from "../../../src/backends/codex/exec-events.js";
import { CodexExecSession } from "../../../src/backends/codex/exec-session.js";
import {
  AbortError,
  type AgentOptions,
  type Message,
  ProcessError,
  UnsupportedFeatureError,
} from "../../../src/index.js";
import { FakeTransport } from "./fake-transport.js";
import { captureLines } from "./fixtures.js";

/** An exec stand-in: once stdin closes, it prints `lines` and exits with `exit` (an error = non-zero). */
function execProcess(lines: Record<string, unknown>[], exit?: unknown): FakeTransport {
  const t = new FakeTransport(() => {}, false);
  const endInput = t.endInput.bind(t);
  t.endInput = async () => {
    await endInput();
    for (const line of lines) t.emit(line);
    t.finish(exit);
  };
  return t;
}

async function run(transport: FakeTransport, prompt = "say hi", options: AgentOptions = {}) {
  const session = new CodexExecSession({ options, transport, mapper: new ExecEventMapper(), prompt });
  await session.start();
  return session;
}

async function drain(session: CodexExecSession): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of session.subscribe()) out.push(m);
  return out;
}

const exit1 = () =>
  new ProcessError("codex process failed: exit code 1", { exitCode: 1, stderrTail: "Error: boom" });

describe("CodexExecSession", () => {
  it("writes the prompt on stdin, then closes it (exec blocks on an open stdin)", async () => {
    const t = execProcess(captureLines("exec-say-hi.jsonl"));
    const session = await run(t, "line one\nline two");
    // A line-oriented transport gets one line per write (the CLI sees a final newline)…
    expect(t.lines).toEqual(["line one", "line two"]);
    expect(t.inputEnded).toBe(true);
    const messages = await drain(session);
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success" });
    expect(session.serverInfo()).toEqual({ threadId: "01a2006c-c217-7032-9b8a-ff632ce7b4da", mode: "exec" });
  });

  it("…a transport with writeText gets the prompt byte for byte, with no newline added", async () => {
    const t = execProcess(captureLines("exec-say-hi.jsonl"));
    const texts: string[] = [];
    Object.assign(t, { writeText: async (text: string) => void texts.push(text) });
    await drain(await run(t, "line one\nline two"));
    expect(texts).toEqual(["line one\nline two"]);
    expect(t.lines).toEqual([]);
  });

  it("a failed turn is delivered as result.isError, and the exit code 1 after it is not thrown", async () => {
    const session = await run(execProcess(captureLines("exec-fail500.jsonl"), exit1()));
    const messages = await drain(session);
    expect(messages.at(-1)).toMatchObject({
      type: "result",
      isError: true,
      subtype: "error_during_execution",
    });
  });

  it("a non-zero exit without any result is a ProcessError with exit code and stderr", async () => {
    const session = await run(execProcess([{ type: "thread.started", thread_id: "t" }], exit1()));
    const error = await drain(session).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessError);
    expect(error).toMatchObject({ exitCode: 1, stderrTail: "Error: boom" });
  });

  it("interrupt kills the process and yields an interrupted result", async () => {
    const t = execProcess([]);
    t.endInput = async () => {
      t.inputEnded = true;
      t.emit({ type: "thread.started", thread_id: "t" });
      t.emit({ type: "turn.started" });
    };
    const session = await run(t);
    const reading = drain(session);
    await session.interrupt();
    const messages = await reading;
    expect(t.closed).toBe(true);
    expect(messages.at(-1)).toMatchObject({
      type: "result",
      isError: true,
      terminalReason: "interrupted",
      sessionId: "t",
    });
    await session.idle();
  });

  it("takes no further prompts and lacks runtime controls", async () => {
    const session = await run(execProcess(captureLines("exec-say-hi.jsonl")));
    await expect(session.send()).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(session.setModel()).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(session.mcpServerStatus()).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await session.close();
  });

  it("an aborted signal kills the process and readers get an AbortError", async () => {
    const controller = new AbortController();
    const t = new FakeTransport(() => {}, false);
    const session = await run(t, "x", { signal: controller.signal });
    const reading = drain(session);
    controller.abort();
    await expect(reading).rejects.toBeInstanceOf(AbortError);
    expect(t.closed).toBe(true);
  });

  it("a process that dies before reading the prompt fails start() with its exit status", async () => {
    const t = new FakeTransport(() => {}, false);
    t.write = async () => {
      t.finish(exit1());
      throw new Error("EPIPE");
    };
    const session = new CodexExecSession({
      options: {},
      transport: t,
      mapper: new ExecEventMapper(),
      prompt: "x",
    });
    await expect(session.start()).rejects.toBeInstanceOf(ProcessError);
  });
});
