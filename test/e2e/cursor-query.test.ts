/**
 * `query()` with `backend: "cursor"`, end to end through a real process per turn: the stand-in
 * `fake-cursor-agent.mjs` (reports 2025.11.25-d5b3271), built from the documented argv and event
 * shapes because no real Cursor binary can be installed here.
 */
import { describe, expect, it } from "vitest";
import { getBackend } from "../../src/backends/registry.js";
import {
  AbortError,
  CliNotFoundError,
  InvalidOptionsError,
  type Message,
  ProcessError,
  type Query,
  query,
  type ResultMessage,
  type StreamEventMessage,
  textOf,
  UnsupportedFeatureError,
  UnsupportedOptionsError,
} from "../../src/index.js";
import { image, text } from "../../src/prompt.js";
import { cursorBed, FAKE_CURSOR, FAKE_CURSOR_VERSION, flagValue } from "./cursor-support.js";
import { assistantText, collect, isAlive, results } from "./support.js";

/** Collects until the iteration throws; returns what came before and the error. */
async function collectUntilError(
  messages: AsyncIterable<Message>,
): Promise<{ messages: Message[]; error: unknown }> {
  const out: Message[] = [];
  try {
    for await (const m of messages) out.push(m);
  } catch (error) {
    return { messages: out, error };
  }
  throw new Error(`expected the iteration to fail; got ${out.map((m) => m.type).join(", ")}`);
}

/** The tool_result blocks of every user message (the prompt echo is a user message too). */
function toolResults(messages: Message[]) {
  return messages
    .flatMap((m) => (m.type === "user" && Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === "tool_result");
}

describe("query() on cursor: one turn", () => {
  it("streams init, the prompt echo, the answer and the result from one --print process", async () => {
    await using bed = cursorBed();
    const q = query({ prompt: "hello there", options: bed.options({ model: "gpt-5" }) });
    const messages = await collect(q);

    expect(messages.map((m) => m.type)).toEqual(["system", "user", "assistant", "result"]);
    const [init, , answer, result] = messages as [Message, Message, Message, ResultMessage];
    expect(init).toMatchObject({ type: "system", subtype: "init", data: { model: "gpt-5", cwd: bed.cwd } });
    expect(answer).toMatchObject({ type: "assistant", model: "gpt-5" });
    expect(textOf(answer as never)).toBe('Turn 1 (0 prior turns): you said "hello there"');
    expect(result).toMatchObject({ subtype: "success", isError: false, result: textOf(answer as never) });
    expect(result.sessionId).toBe(init.sessionId);
    expect(messages.every((m) => m.raw !== undefined)).toBe(true);

    const [run] = bed.invocations();
    expect(run?.argv).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--model",
      "gpt-5",
      "--workspace",
      bed.cwd,
      "--",
      "hello there",
    ]);
    // stdin is not a pipe the CLI could wait on, and the key travels in the environment only.
    expect(run?.stdin).toBe("null-or-tty");
    expect(run?.apiKey).toBe("sk-cursor-test");
    expect(run?.argv.join(" ")).not.toContain("sk-cursor-test");
    expect(isAlive(run?.pid ?? 0)).toBe(false);
  });

  it("passes every Cursor option as its flag", async () => {
    await using bed = cursorBed();
    await collect(
      query({
        prompt: "flags",
        options: bed.options({
          extraArgs: { "approve-mcps": null },
          cursor: { forceApprove: true, mode: "ask", sandbox: "disabled", trustWorkspace: true },
        }),
      }),
    );
    const argv = bed.invocations()[0]?.argv ?? [];
    expect(argv).toEqual(expect.arrayContaining(["--force", "--trust", "--approve-mcps"]));
    expect(flagValue(argv, "--mode")).toBe("ask");
    expect(flagValue(argv, "--sandbox")).toBe("disabled");
  });

  it("takes CURSOR_API_KEY from the environment when cursor.apiKey is not given", async () => {
    await using bed = cursorBed();
    const options = bed.options({ env: { CURSOR_API_KEY: "sk-from-env" } });
    delete options.cursor;
    const messages = await collect(query({ prompt: "hi", options }));
    expect(results(messages)[0]?.isError).toBe(false);
    expect(bed.invocations()[0]?.apiKey).toBe("sk-from-env");
  });

  it("joins text blocks into the argv prompt", async () => {
    await using bed = cursorBed();
    await collect(query({ prompt: [text("first"), text("second")], options: bed.options() }));
    expect(bed.invocations()[0]?.argv.at(-1)).toBe("first\n\nsecond");
  });

  it("a prompt over the argv limit says it is too long for argv and how to pass it instead, not a bare E2BIG", async () => {
    await using bed = cursorBed();
    // Linux refuses any single argument over 128 KiB with E2BIG.
    const error = await collect(query({ prompt: "x".repeat(300 * 1024), options: bed.options() })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProcessError);
    const message = (error as ProcessError).message;
    expect(message).toMatch(/arguments are too long for the system \(E2BIG\): one argument is 307201 bytes/);
    expect(message).toMatch(/cursor-agent takes its prompt only as a command-line argument/);
    expect(message).toMatch(/Write the long part to a file in the workspace/);
    expect(bed.invocations()).toEqual([]);
  });

  it("reports the CLI in serverInfo(), with the chat id and init event", async () => {
    await using bed = cursorBed();
    const q = query({ prompt: "hi", options: bed.options() });
    const messages = await collect(q);
    const info = await q.serverInfo();
    expect(info).toMatchObject({
      backend: "cursor",
      cliPath: FAKE_CURSOR,
      cliVersion: FAKE_CURSOR_VERSION,
      sessionId: results(messages)[0]?.sessionId,
      init: { type: "system", subtype: "init" },
    });
  });
});

describe("query() on cursor: what a turn can contain", () => {
  it("partial output: deltas as stream events, each text once as an assistant message", async () => {
    await using bed = cursorBed();
    const messages = await collect(
      query({ prompt: "TOOL_SHELL stream please", options: bed.options({ includePartialMessages: true }) }),
    );
    expect(bed.invocations()[0]?.argv).toContain("--stream-partial-output");
    const deltas = messages
      .filter((m): m is StreamEventMessage => m.type === "stream_event")
      .map((m) => (m.event.delta as { text: string }).text)
      .join("");
    const result = results(messages)[0];
    // Every piece of text exactly once, whichever view the caller reads.
    expect(assistantText(messages)).toBe(result?.result);
    expect(deltas).toBe(result?.result);
  });

  it("cursor.partialOutput: false overrides includePartialMessages", async () => {
    await using bed = cursorBed();
    const messages = await collect(
      query({
        prompt: "hi",
        options: bed.options({ includePartialMessages: true, cursor: { partialOutput: false } }),
      }),
    );
    expect(bed.invocations()[0]?.argv).not.toContain("--stream-partial-output");
    expect(messages.some((m) => m.type === "stream_event")).toBe(false);
  });

  it("thinking becomes a thinking block before the answer", async () => {
    await using bed = cursorBed();
    const messages = await collect(query({ prompt: "THINK about it", options: bed.options() }));
    const blocks = messages.flatMap((m) => (m.type === "assistant" ? m.content : []));
    expect(blocks[0]).toEqual({ type: "thinking", thinking: "Weighing the options.", signature: "" });
    expect(blocks[1]?.type).toBe("text");
  });

  it("tool calls in both encodings (and function style) pair tool_use with tool_result, in the unified vocabulary", async () => {
    await using bed = cursorBed();
    const messages = await collect(
      query({ prompt: "TOOL_SHELL TOOL_READ_OLD TOOL_FUNCTION TOOL_WRITE_OLD_FAIL", options: bed.options() }),
    );
    const uses = messages
      .flatMap((m) => (m.type === "assistant" ? m.content : []))
      .filter((b) => b.type === "tool_use");
    const outcomes = toolResults(messages);
    expect(uses.map((b) => (b.type === "tool_use" ? [b.id, b.name] : []))).toEqual([
      ["call_shell\nfc_1", "Bash"],
      ["call_read", "Read"],
      ["call_write", "Write"],
      ["call_fn", "list_dir"],
    ]);
    expect(uses[0]).toMatchObject({ input: { command: "echo hi" } });
    expect(uses[1]).toMatchObject({ input: { file_path: "README.md", path: "README.md" } });
    expect(outcomes).toEqual([
      { type: "tool_result", toolUseId: "call_shell\nfc_1", content: "hi\n", isError: false, exitCode: 0 },
      { type: "tool_result", toolUseId: "call_read", content: "# Title\n", isError: false },
      { type: "tool_result", toolUseId: "call_write", content: "EACCES: permission denied", isError: true },
      { type: "tool_result", toolUseId: "call_fn", content: "a.txt\nb.txt", isError: false },
    ]);
  });

  it("a failing shell call in the one-of encoding is an error result block", async () => {
    await using bed = cursorBed();
    const messages = await collect(query({ prompt: "TOOL_SHELL_FAIL", options: bed.options() }));
    const outcome = toolResults(messages)[0];
    expect(outcome).toEqual({
      type: "tool_result",
      toolUseId: "call_shell\nfc_1",
      content: "nope: command not found",
      isError: true,
      exitCode: 127,
    });
  });

  it("a plain-text line on stdout is reported in-band and the turn goes on", async () => {
    await using bed = cursorBed();
    const messages = await collect(query({ prompt: "GARBAGE", options: bed.options() }));
    expect(messages.find((m) => m.type === "system" && m.subtype === "sdk_malformed_line")).toMatchObject({
      data: { line_head: "T: you are on the free plan" },
    });
    expect(results(messages)[0]?.isError).toBe(false);
  });
});

describe("query() on cursor: failures", () => {
  it("an error result followed by a non-zero exit is the turn's outcome, not an exception", async () => {
    await using bed = cursorBed();
    const messages = await collect(query({ prompt: "FAIL", options: bed.options() }));
    expect(results(messages)).toEqual([
      expect.objectContaining({
        subtype: "error",
        isError: true,
        result: "Model call failed: quota exceeded",
      }),
    ]);
  });

  it("an error event without a result becomes an error result", async () => {
    await using bed = cursorBed();
    const messages = await collect(query({ prompt: "ERROR_EVENT", options: bed.options() }));
    const result = results(messages)[0];
    expect(result).toMatchObject({
      isError: true,
      subtype: "error_during_execution",
      result: "Rate limit exceeded, try again later",
      raw: { type: "error" },
    });
    expect(result?.sessionId).toBe(messages[0]?.sessionId);
  });

  it("a crash without a result is a ProcessError with exit code and stderr tail, after what came before", async () => {
    await using bed = cursorBed();
    const { messages, error } = await collectUntilError(query({ prompt: "CRASH", options: bed.options() }));
    expect(messages.map((m) => m.type)).toEqual(["system", "user"]);
    expect(error).toBeInstanceOf(ProcessError);
    expect(error).toMatchObject({ exitCode: 2 });
    expect((error as ProcessError).stderrTail).toContain("panic: simulated crash");
  });

  it("a clean exit without a result is a ProcessError too", async () => {
    await using bed = cursorBed();
    const { messages, error } = await collectUntilError(
      query({ prompt: "NO_RESULT", options: bed.options() }),
    );
    expect(messages.at(-1)?.type).toBe("assistant");
    expect(error).toBeInstanceOf(ProcessError);
    expect(error).toMatchObject({ exitCode: 0, message: expect.stringContaining("without a result") });
  });

  it("resuming an unknown chat fails with the CLI's own words", async () => {
    await using bed = cursorBed();
    const { error } = await collectUntilError(
      query({ prompt: "hi", options: bed.options({ resume: "no-such-chat" }) }),
    );
    expect(error).toBeInstanceOf(ProcessError);
    expect(error).toMatchObject({ exitCode: 1 });
    expect((error as ProcessError).stderrTail).toContain("chat no-such-chat not found");
    expect(flagValue(bed.invocations()[0]?.argv ?? [], "--resume")).toBe("no-such-chat");
  });

  it("a missing binary fails fast with CliNotFoundError", async () => {
    const started = Date.now();
    await expect(
      collect(query({ prompt: "hi", options: { backend: "cursor", cliPath: "/nonexistent/cursor-agent" } })),
    ).rejects.toBeInstanceOf(CliNotFoundError);
    const searched = collect(
      query({
        prompt: "hi",
        options: { backend: "cursor", env: { PATH: "/cas-none", HOME: "/cas-none-home" } },
      }),
    );
    await expect(searched).rejects.toMatchObject({
      cli: "cursor-agent",
      searched: expect.arrayContaining(["/cas-none/cursor-agent", "/cas-none/agent"]),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("query() on cursor: refused before anything is spawned", () => {
  it("unsupported options, all listed in one UnsupportedOptionsError", async () => {
    await using bed = cursorBed();
    const q = query({
      prompt: "hi",
      options: bed.options({
        // @ts-expect-error: not options of this backend (refused at compile time, and at run time for JavaScript)
        systemPrompt: "be terse",
        canUseTool: async () => ({ behavior: "allow" }),
        mcpServers: { fs: { command: "fs-server" } },
        permissionMode: "acceptEdits",
        maxBudgetUsd: 2,
      }),
    });
    const error = await collect(q).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedOptionsError);
    expect((error as UnsupportedOptionsError).options).toEqual([
      "systemPrompt",
      "canUseTool",
      "mcpServers",
      "permissionMode",
      "maxBudgetUsd",
    ]);
    expect(bed.invocations()).toEqual([]);
  });

  it("invalid options, as InvalidOptionsError", async () => {
    await using bed = cursorBed();
    const error = await collect(
      query({ prompt: "hi", options: bed.options({ cursor: { mode: "yolo" as never } }) }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(bed.invocations()).toEqual([]);
  });

  it("an image in the prompt, as UnsupportedFeatureError", async () => {
    await using bed = cursorBed();
    const error = await collect(
      query({
        prompt: [text("what is this?"), image(new Uint8Array([137, 80, 78, 71]))],
        options: bed.options(),
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect(error).toMatchObject({ backend: "cursor", feature: "image prompt blocks" });
    expect(bed.invocations()).toEqual([]);
  });
});

describe("query() on cursor: controls", () => {
  it("every control Cursor lacks throws UnsupportedFeatureError, on the query and on the session", async () => {
    await using bed = cursorBed();
    // Compile-time errors on a query known to be Cursor's; refused at run time where the backend
    // is not known statically (or from JavaScript).
    const q: Query = query({ prompt: "hi", options: bed.options() });
    await q.next();
    const attempts: [string, () => Promise<unknown>][] = [
      ["setModel", () => q.setModel("other")],
      ["setPermissionMode", () => q.setPermissionMode("plan")],
      ["setMaxThinkingTokens", () => q.setMaxThinkingTokens(100)],
      ["rewindFiles", () => q.rewindFiles("uuid")],
      ["mcpServerStatus", () => q.mcpServerStatus()],
    ];
    for (const [feature, attempt] of attempts) {
      await expect(attempt()).rejects.toMatchObject({
        name: "UnsupportedFeatureError",
        feature,
        backend: "cursor",
      });
    }
    await q.close();

    // The session has none of them: "unsupported" is said once, by the capabilities.
    const session = await getBackend("cursor").openSession({ options: bed.options(), oneShot: false });
    try {
      expect(session.controlRequest).toBeUndefined();
      expect(session.setModel).toBeUndefined();
    } finally {
      await session.close();
    }
  });

  it("interrupt() ends the running turn's process and yields an interrupted result", async () => {
    await using bed = cursorBed();
    const q = query({ prompt: "HANG", options: bed.options() });
    const messages: Message[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "assistant") {
        expect(q.pid).toBe(bed.invocations()[0]?.pid);
        await q.interrupt();
      }
    }
    expect(results(messages)).toEqual([
      expect.objectContaining({
        isError: true,
        subtype: "error_during_execution",
        terminalReason: "interrupted",
        sessionId: messages[0]?.sessionId,
      }),
    ]);
    expect(isAlive(bed.invocations()[0]?.pid ?? 0)).toBe(false);
  });

  it("interrupt() escalates to SIGKILL when the CLI ignores SIGTERM", async () => {
    await using bed = cursorBed();
    const q = query({ prompt: "HANG_HARD", options: bed.options({ closeGraceMs: 200 }) });
    const messages: Message[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "assistant") await q.interrupt();
    }
    expect(results(messages)[0]?.terminalReason).toBe("interrupted");
    expect(isAlive(bed.invocations()[0]?.pid ?? 0)).toBe(false);
  });

  it("an aborted signal ends the turn with AbortError and leaves no process", async () => {
    await using bed = cursorBed();
    const controller = new AbortController();
    const q = query({ prompt: "HANG", options: bed.options({ signal: controller.signal }) });
    const seen: Message[] = [];
    const error = await (async () => {
      for await (const m of q) {
        seen.push(m);
        if (m.type === "assistant") controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(seen.map((m) => m.type)).toEqual(["system", "user", "assistant"]);
    expect(isAlive(bed.invocations()[0]?.pid ?? 0)).toBe(false);
  });

  it("a CLI that never exits after its result is ended (cursor/cursor#3588)", async () => {
    await using bed = cursorBed();
    const messages = await collect(query({ prompt: "LINGER", options: bed.options({ exitTimeoutMs: 300 }) }));
    expect(results(messages)[0]?.isError).toBe(false);
    expect(isAlive(bed.invocations()[0]?.pid ?? 0)).toBe(false);
  });

  it("a streamed prompt runs one process per item, each resuming the same chat", async () => {
    await using bed = cursorBed();
    const messages = await collect(
      query({
        prompt: (async function* () {
          yield "first";
          yield "second";
        })(),
        options: bed.options(),
      }),
    );
    const [one, two] = results(messages);
    expect(one?.result).toBe('Turn 1 (0 prior turns): you said "first"');
    expect(two?.result).toBe('Turn 2 (1 prior turns): you said "second"');
    expect(two?.sessionId).toBe(one?.sessionId);
    const [first, second] = bed.invocations();
    expect(flagValue(first?.argv ?? [], "--resume")).toBeUndefined();
    expect(flagValue(second?.argv ?? [], "--resume")).toBe(one?.sessionId);
    expect(second?.pid).not.toBe(first?.pid);
  });
});
