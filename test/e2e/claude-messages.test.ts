/**
 * Typed messages against the real Claude Code CLI (2.1.330), offline: where lifecycle noise goes
 * (a stream ends with its result), the system subtypes the scripted model can provoke arrive typed,
 * hook callbacks get their event's typed input, and the control answers are typed.
 */
import { describe, expect, it } from "vitest";
import type {
  PostToolUseHookInput,
  PreToolUseHookInput,
  StopHookInput,
} from "../../src/backends/claude/index.js";
import { AgentSdkClient, isSystemMessage, type Message, query } from "../../src/index.js";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { CLAUDE_CLI_VERSION, collect, results, testBed } from "./support.js";

/** `type` or `system/<subtype>` of each message. */
function kinds(messages: Message[]): string[] {
  return messages.map((m) => (m.type === "system" ? `system/${m.subtype}` : m.type));
}

function lifecycleStates(messages: Message[]): string[] {
  return messages.flatMap((m) => (isSystemMessage(m, "command_lifecycle") ? [m.data.state] : []));
}

async function* prompts(...texts: string[]) {
  for (const text of texts) yield text;
}

describe(`typed messages against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("a one-shot stream ends with its result; the turn's command_lifecycle comes before it", async () => {
    await using bed = await testBed([{ text: "only answer" }]);
    const messages = await collect(query({ prompt: "hello", options: bed.options() }));
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "only answer" });
    expect(lifecycleStates(messages)).toEqual(["queued", "started", "completed"]);
    const completed = messages.findIndex(
      (m) => isSystemMessage(m, "command_lifecycle") && m.data.state === "completed",
    );
    expect(completed).toBe(messages.length - 2);
    expect(messages.some((m) => m.type === "unknown")).toBe(false);
    const init = messages.find((m) => isSystemMessage(m, "init"));
    expect(init && isSystemMessage(init, "init") && init.data.claude_code_version).toBe(CLAUDE_CLI_VERSION);
  });

  it("each turn of a streamed prompt and of a client ends with its result", async () => {
    await using bed = await testBed([{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }]);
    const streamed = await collect(query({ prompt: prompts("first", "second"), options: bed.options() }));
    expect(streamed.at(-1)?.type).toBe("result");
    for (const result of results(streamed)) {
      const before = streamed[streamed.indexOf(result) - 1];
      expect(before && isSystemMessage(before, "command_lifecycle") && before.data.state).toBe("completed");
    }

    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    for (const text of ["third", "fourth"]) {
      await client.query(text);
      const turn = await collect(client.receiveResponse());
      // The turn's own lifecycle, whole: nothing of the previous turn leaks into this one.
      expect(lifecycleStates(turn)).toEqual(["queued", "started", "completed"]);
      expect(turn.at(-1)?.type).toBe("result");
    }
  });

  it("with session state events on, idle follows the result (documented), and both are typed", async () => {
    await using bed = await testBed([{ text: "stateful" }]);
    const messages = await collect(
      query({ prompt: "hi", options: bed.options({ env: { CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: "1" } }) }),
    );
    const states = messages.flatMap((m) =>
      isSystemMessage(m, "session_state_changed") ? [m.data.state] : [],
    );
    expect(states).toEqual(["running", "idle"]);
    expect(kinds(messages).slice(-3)).toEqual([
      "system/command_lifecycle",
      "result",
      "system/session_state_changed",
    ]);
  });

  it("types what the scripted model provokes: api_retry, hooks, tasks, denials, refusals, compaction, reset", async () => {
    const retried = await (async () => {
      await using bed = await testBed([{ error: { status: 500 } }, { text: "after retry" }]);
      // The kit turns the CLI's API retries off; one retry is what this message needs.
      const env = { CLAUDE_CODE_MAX_RETRIES: "1" };
      return await collect(query({ prompt: "retry me", options: bed.options({ env }) }));
    })();
    const retry = retried.find((m) => isSystemMessage(m, "api_retry"));
    expect(retry && isSystemMessage(retry, "api_retry") && retry.data).toMatchObject({
      attempt: 1,
      error_status: 500,
      error: "server_error",
    });
    expect(results(retried)[0]?.result).toBe("after retry");

    // Answers by what was asked, so the order the CLI batches prompts or runs a subagent in does not matter.
    const route: ScriptedTurn = (request) => {
      const text = request.lastUserText;
      if (text.includes("run echo"))
        return { toolUse: { name: "Bash", input: { command: "echo hooked", description: "echo" } } };
      if (text.includes("delegate")) {
        const input = {
          description: "Greet",
          prompt: "Say hi",
          subagent_type: "general-purpose",
          run_in_background: false,
        };
        return { toolUse: { name: "Task", input } };
      }
      if (text.includes("refuse me")) return { text: "I can't", stopReason: "refusal" };
      if (text.includes("write outside")) {
        return {
          toolUse: { name: "Write", input: { file_path: "/outside-the-workspace.txt", content: "x" } },
        };
      }
      return { text: "ok" };
    };
    await using bed = await testBed(Array.from({ length: 20 }, () => route));
    const settings = {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo hook-ran" }] }] },
    };
    const run = (prompt: string | AsyncIterable<string>, extra = {}) =>
      collect(query({ prompt, options: bed.options(extra) }));
    const messages = [
      ...(await run("run echo", {
        settings,
        extraArgs: { "include-hook-events": null },
        env: { CLAUDE_CODE_EMIT_TOOL_USE_SUMMARIES: "1" },
      })),
      ...(await run("delegate")),
      ...(await run("write outside")),
      ...(await run("refuse me")),
      ...(await run(prompts("something", "/compact", "/clear"))),
    ];
    const seen = new Set(kinds(messages));
    for (const kind of [
      "system/hook_started",
      "system/hook_response",
      "system/task_started",
      "system/task_notification",
      "system/permission_denied",
      "system/informational",
      "system/status",
      "system/compact_boundary",
      "system/conversation_reset",
      "system/tool_use_summary",
    ]) {
      expect(seen, kind).toContain(kind);
    }
    expect(messages.some((m) => m.type === "unknown")).toBe(false);
    for (const m of messages) {
      if (isSystemMessage(m, "hook_response")) {
        expect(m.data).toMatchObject({ hook_event: "PreToolUse", outcome: "success" });
      }
      if (isSystemMessage(m, "task_started")) expect(m.data.task_id).toEqual(expect.any(String));
      if (isSystemMessage(m, "permission_denied")) expect(m.data.tool_name).toBe("Write");
      if (isSystemMessage(m, "informational")) expect(m.data.level).toEqual(expect.any(String));
      if (isSystemMessage(m, "compact_boundary")) expect(m.data.compact_metadata?.trigger).toBe("manual");
      if (isSystemMessage(m, "conversation_reset")) expect(m.data.trigger).toBe("clear");
      if (isSystemMessage(m, "tool_use_summary"))
        expect(m.data.preceding_tool_use_ids.length).toBeGreaterThan(0);
    }
    expect(messages.at(-1)?.type).toBe("result");
  });

  it("hook callbacks get their event's typed input", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "echo typed", description: "echo" } } },
      { text: "typed done" },
    ]);
    const pre: PreToolUseHookInput[] = [];
    const post: PostToolUseHookInput[] = [];
    const stop: StopHookInput[] = [];
    const messages = await collect(
      query({
        prompt: "run it",
        options: bed.options({
          hooks: {
            PreToolUse: [
              {
                hooks: [
                  (input) => {
                    pre.push(input);
                    return {};
                  },
                ],
              },
            ],
            PostToolUse: [
              {
                hooks: [
                  (input) => {
                    post.push(input);
                    return {};
                  },
                ],
              },
            ],
            Stop: [
              {
                hooks: [
                  (input) => {
                    stop.push(input);
                    return {};
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(results(messages)[0]?.result).toBe("typed done");
    expect(pre[0]).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo typed" },
    });
    expect(pre[0]?.tool_use_id).toEqual(expect.any(String));
    expect(post[0]).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_use_id: pre[0]?.tool_use_id,
    });
    expect(stop[0]).toMatchObject({ hook_event_name: "Stop", stop_hook_active: false });
  });

  it("serverInfo, mcpServerStatus and rewindFiles answer in their typed shapes", async () => {
    await using bed = await testBed([{ text: "ok" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect("hi");
    await collect(client.receiveResponse());
    const info = await client.getServerInfo();
    expect(info?.claude_code_version).toBe(CLAUDE_CLI_VERSION);
    expect(info?.commands?.[0]).toEqual(
      expect.objectContaining({ name: expect.any(String), description: expect.any(String) }),
    );
    expect(info?.models?.some((m) => m.value === "default")).toBe(true);
    expect(info?.account?.apiKeySource).toBe("ANTHROPIC_API_KEY");
    expect(await client.getMcpStatus()).toEqual([]);
    const rewind = await client.rewindFiles(crypto.randomUUID(), { dryRun: true });
    expect(typeof rewind.canRewind).toBe("boolean");
  });
});
