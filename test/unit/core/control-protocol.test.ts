import { describe, expect, it } from "vitest";
import {
  AgentSdkClient,
  ControlRequestError,
  ControlTimeoutError,
  type Message,
  query,
} from "../../../src/index.js";
import { cliLike, resultLine, ScriptedTransport } from "../support/scripted-transport.js";

async function collect(it: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of it) out.push(m);
  return out;
}

/** Waits until the SDK has written a control_response for `requestId`. */
async function responseFor(
  t: ScriptedTransport,
  requestId: string,
  withinMs = 0,
): Promise<Record<string, unknown>> {
  const deadline = performance.now() + withinMs;
  for (let i = 0; i < 1000 || performance.now() < deadline; i++) {
    const found = t.responses().find((r) => r.request_id === requestId);
    if (found) return found;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`no response for ${requestId}`);
}

describe("control protocol over a custom transport", () => {
  it("runs a query over an injected transport and closes it", async () => {
    const transport = new ScriptedTransport(cliLike((t) => t.emit(resultLine("from memory"))));
    const messages = await collect(query({ prompt: "hi", options: { transport } }));
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "from memory", isError: false });
    expect(transport.written.find((m) => m.type === "user")).toMatchObject({
      message: { role: "user", content: "hi" },
    });
    expect(transport.closed).toBe(true);
  });

  it("assigns hook ids hook_0… in order and routes callbacks to them", async () => {
    const calls: string[] = [];
    const transport = new ScriptedTransport(
      cliLike((t) => {
        t.emit({
          type: "control_request",
          request_id: "cli-1",
          request: { subtype: "hook_callback", callback_id: "hook_1", input: { hook_event_name: "Stop" } },
        });
      }),
    );
    const client = new AgentSdkClient({
      transport,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async () => {
                calls.push("pre");
                return {};
              },
            ],
          },
        ],
        Stop: [
          {
            hooks: [
              async (input) => {
                calls.push(`stop:${input.hook_event_name}`);
                return { continue_: false } as never;
              },
            ],
          },
        ],
      },
    });
    await client.connect("go");
    const init = transport.written.find((m) => m.type === "control_request") as {
      request: Record<string, unknown>;
    };
    expect(init.request.hooks).toEqual({
      PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0"] }],
      Stop: [{ hookCallbackIds: ["hook_1"] }],
    });
    const response = await responseFor(transport, "cli-1");
    expect(response).toEqual({ subtype: "success", request_id: "cli-1", response: { continue: false } });
    expect(calls).toEqual(["stop:Stop"]);
    await client.disconnect();
  });

  it("a callback that throws becomes an error response and the session continues", async () => {
    const transport = new ScriptedTransport(
      cliLike((t) => {
        t.emit({
          type: "control_request",
          request_id: "cli-2",
          request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } },
        });
      }),
    );
    const client = new AgentSdkClient({
      transport,
      canUseTool: async () => {
        throw new Error("policy engine down");
      },
    });
    await client.connect("go");
    expect(await responseFor(transport, "cli-2")).toEqual({
      subtype: "error",
      request_id: "cli-2",
      error: "policy engine down",
    });
    transport.emit(resultLine("still alive"));
    const messages = await collect(client.receiveResponse());
    expect(messages.at(-1)).toMatchObject({ result: "still alive" });
    await client.disconnect();
  });

  it("controlTimeoutMs and callbackTimeoutMs of Infinity mean no timeout (not Node's 1 ms overflow)", async () => {
    const slow = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    const transport = new ScriptedTransport((message, t) => {
      const request = message.request as { subtype?: string } | undefined;
      if (message.type === "control_request" && request?.subtype === "initialize") {
        // A slow CLI: a 1 ms timer (what Node makes of an overflowing delay) would fire first.
        void slow(25).then(() =>
          t.emit({
            type: "control_response",
            response: { subtype: "success", request_id: message.request_id, response: {} },
          }),
        );
      }
      if (message.type === "user") {
        t.emit({
          type: "control_request",
          request_id: "slow-callback",
          request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } },
        });
      }
    });
    const client = new AgentSdkClient({
      transport,
      controlTimeoutMs: Number.POSITIVE_INFINITY,
      callbackTimeoutMs: Number.POSITIVE_INFINITY,
      canUseTool: async () => {
        await slow(25);
        return { behavior: "allow" };
      },
    });
    await client.connect("go");
    expect(await responseFor(transport, "slow-callback", 10_000)).toMatchObject({ subtype: "success" });
    await client.disconnect();
  });

  it("passes suggestions and maps allow/deny answers to the wire", async () => {
    const suggestion = { type: "setMode", mode: "acceptEdits", destination: "session" };
    const transport = new ScriptedTransport(
      cliLike((t) => {
        t.emit({
          type: "control_request",
          request_id: "a",
          request: {
            subtype: "can_use_tool",
            tool_name: "Write",
            input: { file_path: "x" },
            permission_suggestions: [suggestion],
            tool_use_id: "toolu_1",
          },
        });
        t.emit({
          type: "control_request",
          request_id: "b",
          request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "rm -rf /" } },
        });
      }),
    );
    const client = new AgentSdkClient({
      transport,
      canUseTool: async (name, _input, ctx) =>
        name === "Write"
          ? { behavior: "allow", updatedPermissions: ctx.suggestions }
          : { behavior: "deny", message: "no", interrupt: true },
    });
    await client.connect("go");
    expect(await responseFor(transport, "a")).toMatchObject({
      response: { behavior: "allow", updatedInput: { file_path: "x" }, updatedPermissions: [suggestion] },
    });
    expect(await responseFor(transport, "b")).toMatchObject({
      response: { behavior: "deny", message: "no", interrupt: true },
    });
    await client.disconnect();
  });

  it("answers unknown incoming subtypes with an error", async () => {
    const transport = new ScriptedTransport(
      cliLike((t) => t.emit({ type: "control_request", request_id: "u", request: { subtype: "teleport" } })),
    );
    const client = new AgentSdkClient({ transport });
    await client.connect("go");
    expect(await responseFor(transport, "u")).toMatchObject({
      subtype: "error",
      error: "Unsupported control request subtype: teleport",
    });
    await client.disconnect();
  });

  it("names the subtype of a control request that times out", async () => {
    const transport = new ScriptedTransport(cliLike(() => {}));
    const client = new AgentSdkClient({ transport, controlTimeoutMs: 50 });
    await client.connect();
    const error = await client.setModel("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlTimeoutError);
    expect((error as ControlTimeoutError).subtype).toBe("set_model");
    await client.disconnect();
  });

  it("turns an error response into ControlRequestError", async () => {
    const transport = new ScriptedTransport((message, t) => {
      if (message.type !== "control_request") return;
      const request = message.request as { subtype: string };
      t.emit({
        type: "control_response",
        response:
          request.subtype === "initialize"
            ? { subtype: "success", request_id: message.request_id, response: {} }
            : {
                subtype: "error",
                request_id: message.request_id,
                error: "Server not found",
                error_code: "x",
              },
      });
    });
    const client = new AgentSdkClient({ transport });
    await client.connect();
    const error = await client
      .controlRequest({ subtype: "mcp_reconnect", serverName: "nope" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ControlRequestError);
    expect(error).toMatchObject({ subtype: "mcp_reconnect", code: "x" });
    await client.disconnect();
  });
});
