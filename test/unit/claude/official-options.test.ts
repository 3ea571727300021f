/**
 * The official SDK's newer options that are answered in-process (dialogs, elicitations), sent with
 * every user message (`verbatimPrompts`), or put in the initialize request — over a scripted
 * transport — and how validation treats CLI-owned nested objects.
 */
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { toDraft07 } from "../../../src/backends/claude/command.js";
import { validateClaudeOptions } from "../../../src/backends/claude/validate.js";
import {
  AgentSdkClient,
  type Message,
  query,
  UnsupportedFeatureError,
  UnsupportedOptionsError,
} from "../../../src/index.js";
import {
  agentOptionsIssues,
  unknownNestedFields,
  validateAgentOptions,
} from "../../../src/options-schema.js";
import { SessionLifecycle } from "../../../src/session/session-lifecycle.js";
import { flowLimits } from "../../../src/transport/read-flow.js";
import { type SpawnedProcess, SpawnedProcessTransport } from "../../../src/transport/spawned-process.js";
import { cliLike, resultLine, ScriptedTransport } from "../support/scripted-transport.js";

/** Resolves once the SDK has answered `requestId`, or after `turns` event-loop turns with none. */
async function answerTo(t: ScriptedTransport, requestId: string, turns = 200) {
  for (let i = 0; i < turns; i++) {
    const found = t.responses().find((r) => r.request_id === requestId);
    if (found) return found;
    await new Promise((r) => setImmediate(r));
  }
  return undefined;
}

async function collect(messages: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

describe("dialogs and elicitations", () => {
  const dialog = (id: string) => ({
    type: "control_request",
    request_id: id,
    request: {
      subtype: "request_user_dialog",
      dialog_kind: "refusal_fallback_prompt",
      payload: { a: 1 },
      tool_use_id: "t1",
    },
  });

  it("onUserDialog answers a dialog; null leaves it unanswered on purpose", async () => {
    const seen: unknown[] = [];
    const transport = new ScriptedTransport(
      cliLike((t) => {
        t.emit(dialog("d1"));
        t.emit(dialog("d2"));
      }),
    );
    let calls = 0;
    const client = new AgentSdkClient({
      transport,
      supportedDialogKinds: ["refusal_fallback_prompt"],
      onUserDialog: async (request, { requestId }) => {
        seen.push({ ...request, requestId });
        calls += 1;
        return calls === 1 ? { behavior: "completed", result: { choice: "retry" } } : null;
      },
    });
    await client.connect("go");
    expect(await answerTo(transport, "d1")).toMatchObject({
      subtype: "success",
      response: { behavior: "completed", result: { choice: "retry" } },
    });
    expect(await answerTo(transport, "d2")).toBeUndefined();
    expect(calls).toBe(2);
    expect(seen[0]).toMatchObject({
      dialogKind: "refusal_fallback_prompt",
      payload: { a: 1 },
      toolUseId: "t1",
      requestId: "d1",
    });
    const init = transport.written.find((m) => m.type === "control_request");
    expect(init?.request).toMatchObject({
      subtype: "initialize",
      supportedDialogKinds: ["refusal_fallback_prompt"],
    });
    await client.disconnect();
  });

  it("without onUserDialog a dialog gets no answer; without onElicitation an elicitation is declined", async () => {
    const transport = new ScriptedTransport(
      cliLike((t) => {
        t.emit(dialog("d"));
        t.emit({
          type: "control_request",
          request_id: "e",
          request: { subtype: "elicitation", mcp_server_name: "s", message: "name?" },
        });
      }),
    );
    const client = new AgentSdkClient({ transport });
    await client.connect("go");
    expect(await answerTo(transport, "e")).toMatchObject({
      subtype: "success",
      response: { action: "decline" },
    });
    expect(await answerTo(transport, "d")).toBeUndefined();
    await client.disconnect();
  });

  it("supportedDialogKinds without onUserDialog is refused before anything starts", () => {
    expect(() => validateClaudeOptions({ supportedDialogKinds: ["k"] })).toThrow(
      /supportedDialogKinds: needs onUserDialog/,
    );
  });
});

describe("verbatimPrompts and the initialize request", () => {
  it("marks every user message client_composed and sends the initialize fields", async () => {
    const transport = new ScriptedTransport(cliLike((t) => t.emit(resultLine("ok"))));
    await collect(
      query({
        prompt: "@file /cmd",
        options: {
          transport,
          verbatimPrompts: true,
          title: "T",
          systemPrompt: ["a", "b"],
          toolAliases: { A: "B" },
        },
      }),
    );
    expect(transport.written.find((m) => m.type === "user")).toMatchObject({ client_composed: true });
    const init = transport.written.find((m) => m.type === "control_request")?.request;
    expect(init).toMatchObject({
      subtype: "initialize",
      title: "T",
      systemPrompt: ["a", "b"],
      toolAliases: { A: "B" },
    });
  });
});

describe("background tasks keep a query's input open", () => {
  it("a one-shot query ends input only after the reported task is done", async () => {
    const transport = new ScriptedTransport(
      cliLike((t) => {
        t.emit({ type: "system", subtype: "background_tasks_changed", tasks: [{ task_id: "b1" }] });
        t.emit(resultLine("first"));
      }),
    );
    const q = query({ prompt: "go", options: { transport } });
    const seen: string[] = [];
    for await (const message of q) {
      if (message.type !== "result") continue;
      seen.push(String(message.result));
      if (seen.length === 1) {
        // Let the SDK act on the result: it must not end input while b1 runs.
        for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
        expect(transport.inputEnded).toBe(false);
        transport.emit({ type: "system", subtype: "task_notification", task_id: "b1", status: "completed" });
        transport.emit({ type: "system", subtype: "background_tasks_changed", tasks: [] });
        transport.emit(resultLine("second"));
      }
    }
    expect(seen).toEqual(["first", "second"]);
    expect(transport.inputEnded).toBe(true);
  });

  it("the wait is bounded: after backgroundTaskTimeoutMs input closes anyway", async () => {
    let shutdowns = 0;
    const life = new SessionLifecycle(
      undefined,
      async () => {
        shutdowns += 1;
      },
      flowLimits({}),
      5,
    );
    life.turnSent();
    life.setBackgroundTasks(1);
    life.resultSeen();
    await life.idle(); // resolves through the 5 ms bound, with the task still reported
    life.setBackgroundTasks(0);
    await life.idle();
    expect(shutdowns).toBe(0);
  });
});

describe("validation of the official options", () => {
  it("unknown fields of CLI-owned nested objects pass, and are listed for the warning", () => {
    const options = {
      sandbox: { enabled: true, network: { allowedDomains: ["x"], newNetField: 1 }, newTop: true },
      mcpServers: { s: { type: "http" as const, url: "http://127.0.0.1:1", alwaysLoad: true, futureKey: 2 } },
      hooks: { Stop: [{ hooks: [async () => ({})], onFailure: "block" as const, whenUnanswered: "allow" }] },
      plugins: [{ type: "local" as const, path: "/p", skipMcpDiscovery: true, extra: 1 }],
      systemPrompt: {
        type: "preset" as const,
        preset: "claude_code" as const,
        excludeDynamicSections: true,
        next: 1,
      },
      thinking: { type: "adaptive" as const, display: "omitted" as const, future: 1 },
    };
    expect(agentOptionsIssues(options)).toEqual([]);
    expect(unknownNestedFields(options).sort()).toEqual(
      [
        "hooks.Stop[0].whenUnanswered",
        "mcpServers.s.futureKey",
        "plugins[0].extra",
        "sandbox.network.newNetField",
        "sandbox.newTop",
        "systemPrompt.next",
        "thinking.future",
      ].sort(),
    );
  });

  it("known nested fields are still checked, and top-level typos still fail with a suggestion", () => {
    expect(agentOptionsIssues({ sandbox: { network: { httpProxyPort: "80" } } })).toEqual([
      "sandbox.network.httpProxyPort: Invalid input: expected number, received string",
    ]);
    expect(agentOptionsIssues({ persistSesion: false })).toEqual([
      "persistSesion: unknown option 'persistSesion' (did you mean 'persistSession'?)",
    ]);
    expect(() => validateAgentOptions({ sessionId: "not-a-uuid" })).toThrow(/sessionId: must be a UUID/);
  });

  it("executable and the other inapplicable official options are refused with their reason", () => {
    expect(() => validateClaudeOptions({ executable: "bun" })).toThrow(UnsupportedOptionsError);
    expect(() => validateClaudeOptions({ executable: "bun" })).toThrow(/native binary/);
  });

  it("Claude-only controls are refused on other backends", async () => {
    const client: AgentSdkClient = new AgentSdkClient({ backend: "codex" });
    await expect(client.setMcpServers({})).rejects.toThrow(UnsupportedFeatureError);
  });
});

describe("toDraft07", () => {
  it("rewrites tuples and dependent keywords, leaves property names and data alone", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        prefixItems: { type: "array", prefixItems: [{ type: "string" }], items: false },
        open: { type: "array", prefixItems: [{ type: "number" }] },
      },
      dependentRequired: { a: ["b"] },
      default: { prefixItems: [1] },
    };
    expect(toDraft07(schema)).toEqual({
      type: "object",
      properties: {
        prefixItems: { type: "array", items: [{ type: "string" }], additionalItems: false },
        open: { type: "array", items: [{ type: "number" }] },
      },
      dependencies: { a: ["b"] },
      default: { prefixItems: [1] },
    });
    expect(schema.properties.prefixItems).toHaveProperty("prefixItems");
  });
});

describe("SpawnedProcessTransport", () => {
  /** A process-like object whose "CLI" answers initialize, then exits with `exitCode` on EOF. */
  function fakeProcess(exitCode: number, reportsExit = true): SpawnedProcess & { kills: string[] } {
    const events = new EventEmitter();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const kills: string[] = [];
    let code: number | null = null;
    stdin.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        const message = JSON.parse(line) as { type: string; request_id?: string };
        if (message.type === "control_request") {
          stdout.write(
            `${JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: message.request_id, response: {} } })}\n`,
          );
        }
        if (message.type === "user") stdout.write(`${JSON.stringify(resultLine("ok"))}\n`);
      }
    });
    const exit = () => {
      stdout.end();
      code = exitCode;
      if (reportsExit) setImmediate(() => events.emit("exit", exitCode, null));
    };
    stdin.on("finish", exit);
    return {
      stdin,
      stdout,
      kills,
      get killed() {
        return kills.length > 0;
      },
      get exitCode() {
        return code;
      },
      kill(signal) {
        kills.push(signal);
        if (code === null) exit();
        return true;
      },
      once: (event: string, listener: Parameters<EventEmitter["once"]>[1]) => events.once(event, listener),
      off: (event: string, listener: Parameters<EventEmitter["off"]>[1]) => events.off(event, listener),
    } as SpawnedProcess & { kills: string[] };
  }

  const transportFor = (process: SpawnedProcess) =>
    new SpawnedProcessTransport({
      spawn: () => process,
      command: "claude",
      args: [],
      env: {},
      maxBufferSize: 1 << 20,
      closeGraceMs: 50,
      cliName: "claude",
    });

  it("runs a query over the caller's process", async () => {
    const messages = await collect(
      query({ prompt: "hi", options: { transport: transportFor(fakeProcess(0)) } }),
    );
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "ok" });
  });

  it("a non-zero exit is a ProcessError; a process that never reports its exit does not hang close()", async () => {
    const failing = query({ prompt: "hi", options: { transport: transportFor(fakeProcess(3)) } });
    await expect(collect(failing)).rejects.toThrow(/claude process failed: exit code 3/);
    const silent = fakeProcess(0, false);
    const client = new AgentSdkClient({ transport: transportFor(silent) });
    await client.connect();
    await client.disconnect();
    // No exit report after SIGTERM: SIGKILL follows the grace period, and close() still returns.
    expect(silent.kills).toEqual(["SIGTERM", "SIGKILL"]);
  });

  it("a spawn function that throws fails connect() with ProcessError", async () => {
    const transport = new SpawnedProcessTransport({
      spawn: () => {
        throw new Error("no container");
      },
      command: "claude",
      args: [],
      env: {},
      maxBufferSize: 1024,
      closeGraceMs: 50,
      cliName: "claude",
    });
    await expect(transport.connect()).rejects.toThrow(
      /spawnClaudeCodeProcess failed to start claude: no container/,
    );
  });
});
