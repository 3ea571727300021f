/**
 * `toolApproval: "ai-sdk"`: the agent's permission requests through the AI SDK's tool-approval flow
 * (a `tool-approval-request` for the provider-executed call, answered by a `tool-approval-response`
 * in the next call), against the real claude and codex, offline (`ai` 6 on Node 20, 7 on Node 22+).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { ApprovalNotPendingError, createCodeAgent } from "../../src/ai-sdk/index.js";
import { InvalidOptionsError, UnsupportedOptionsError } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { CLAUDE_CODE_ACP_VERSION, claudeAcpBed, runningAgents } from "../e2e/acp-support.js";
import { CODEX_CLI_VERSION, codexBed, runningCliProcesses } from "../e2e/codex-support.js";
import { cursorBed } from "../e2e/cursor-support.js";
import { CLAUDE_CLI_VERSION, testBed } from "../e2e/support.js";
import { AI_MAJOR, ai } from "./ai-version.js";

const { generateText, streamText } = ai;

type Content = Awaited<ReturnType<typeof generateText>>["content"];

/** The last UI message a UI message stream builds. */
async function lastOf(stream: ReturnType<typeof ai.readUIMessageStream>) {
  let last: Parameters<typeof ai.convertToModelMessages>[0][number] | undefined;
  for await (const message of stream) last = message;
  return last;
}

/** The approval request of a result, and the tool call it is for. */
function approvalOf(content: Content) {
  const request = content.find((p) => p.type === "tool-approval-request");
  if (request?.type !== "tool-approval-request") throw new Error("no tool-approval-request");
  return request;
}

/** The history after a call that asked, with the caller's answer appended. */
function answered(
  prompt: string,
  first: { response: { messages: ModelMessage[] } },
  approvalId: string,
  approved: boolean,
  reason?: string,
): ModelMessage[] {
  return [
    { role: "user", content: prompt },
    ...first.response.messages,
    {
      role: "tool",
      content: [
        {
          type: "tool-approval-response",
          approvalId,
          approved,
          ...(reason ? { reason } : {}),
          providerExecuted: true,
        },
      ],
    },
  ] as ModelMessage[];
}

describe(`toolApproval "ai-sdk" over claude ${CLAUDE_CLI_VERSION} (ai ${AI_MAJOR})`, () => {
  it("generateText: the request ends the call (tool-calls); the approving call runs the tool in the same CLI and finishes the turn", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch approved.txt", description: "make a file" } } },
      { text: "Made the file." },
    ]);
    const agent = createCodeAgent();
    const model = agent("claude", { ...bed.options(), toolApproval: "ai-sdk" });
    const first = await generateText({ model, prompt: "make a file" });
    expect(first.finishReason).toBe("tool-calls");
    const request = approvalOf(first.content);
    const call = first.content.find((p) => p.type === "tool-call");
    expect(call).toMatchObject({
      toolName: "Bash",
      providerExecuted: true,
      input: { command: "touch approved.txt" },
    });
    expect(request.toolCall.toolCallId).toBe(call?.toolCallId);
    // The CLI waits for the answer: the tool has not run, the process is alive.
    expect(existsSync(join(bed.cwd, "approved.txt"))).toBe(false);
    expect(liveGroupCount()).toBe(1);

    const second = await generateText({
      model,
      messages: answered("make a file", first, request.approvalId, true),
    });
    expect(existsSync(join(bed.cwd, "approved.txt"))).toBe(true);
    expect(second.text).toBe("Made the file.");
    expect(second.finishReason).toBe("stop");
    const result = second.content.find((p) => p.type === "tool-result");
    expect(result).toMatchObject({ toolCallId: call?.toolCallId, toolName: "Bash" });
    expect(second.providerMetadata?.codeAgent?.sessionId).toBe(first.providerMetadata?.codeAgent?.sessionId);
    // One turn of one CLI process across both calls: the model was asked twice (call, then answer).
    expect(bed.model.turnRequests).toHaveLength(2);
    await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);
  });

  it("streamText: a denial (with the caller's reason) reaches the model; the tool never runs", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch denied.txt" } } },
      { text: "Understood, I did not." },
    ]);
    const agent = createCodeAgent();
    const model = agent("claude", { ...bed.options(), toolApproval: "ai-sdk" });
    const first = streamText({ model, prompt: "make a file" });
    const types: string[] = [];
    for await (const part of first.fullStream) types.push(part.type);
    expect(types.indexOf("tool-call")).toBeLessThan(types.indexOf("tool-approval-request"));
    expect(await first.finishReason).toBe("tool-calls");
    const request = approvalOf(await first.content);
    const second = streamText({
      model,
      messages: answered(
        "make a file",
        { response: await first.response },
        request.approvalId,
        false,
        "not in this repo",
      ),
    });
    expect(await second.text).toBe("Understood, I did not.");
    expect(existsSync(join(bed.cwd, "denied.txt"))).toBe(false);
    expect(JSON.stringify(bed.model.turnRequests[1]?.body)).toContain("not in this repo");
    await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);
  });

  it("the useChat path: the UI message stream shows approval-requested; the answered UI messages (addToolApprovalResponse's state) convert into the call that runs the tool", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch via-ui.txt" } } },
      { text: "Done via the UI." },
    ]);
    const agent = createCodeAgent();
    const model = agent("claude", { ...bed.options(), toolApproval: "ai-sdk" });
    const user = { id: "u1", role: "user" as const, parts: [{ type: "text" as const, text: "make a file" }] };
    const first = streamText({ model, messages: await ai.convertToModelMessages([user]) });
    const assistant = await lastOf(ai.readUIMessageStream({ stream: first.toUIMessageStream() }));
    const part = assistant?.parts.find((p) => p.type === "dynamic-tool");
    expect(part).toMatchObject({ toolName: "Bash", state: "approval-requested", providerExecuted: true });
    if (part?.type !== "dynamic-tool" || part.state !== "approval-requested") throw new Error("no approval");
    // What useChat's addToolApprovalResponse does to the part.
    const answeredPart = {
      ...part,
      state: "approval-responded",
      approval: { id: part.approval.id, approved: true },
    };
    const answered = {
      ...(assistant as NonNullable<typeof assistant>),
      parts: assistant?.parts.map((p) => (p === part ? answeredPart : p)),
    };
    const second = streamText({
      model,
      messages: await ai.convertToModelMessages([user, answered as never]),
    });
    expect(await second.text).toBe("Done via the UI.");
    expect(existsSync(join(bed.cwd, "via-ui.txt"))).toBe(true);
    await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);
  });

  it("an answer nobody waits for is ApprovalNotPendingError; a request not answered in callbackTimeoutMs ends the waiting CLI", async () => {
    await using bed = await testBed([{ toolUse: { name: "Bash", input: { command: "touch late.txt" } } }]);
    const agent = createCodeAgent();
    const model = agent("claude", { ...bed.options({ callbackTimeoutMs: 1_000 }), toolApproval: "ai-sdk" });
    const first = await generateText({ model, prompt: "make a file" });
    const request = approvalOf(first.content);
    await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);
    await expect(
      generateText({ model, messages: answered("make a file", first, request.approvalId, true) }),
    ).rejects.toBeInstanceOf(ApprovalNotPendingError);
    expect(existsSync(join(bed.cwd, "late.txt"))).toBe(false);
  });

  it("a new message instead of an answer ends the waiting turn and resumes its session", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch skipped.txt" } } },
      { text: "Fine, something else." },
    ]);
    const agent = createCodeAgent();
    const model = agent("claude", { ...bed.options(), toolApproval: "ai-sdk" });
    const first = await generateText({ model, prompt: "make a file" });
    approvalOf(first.content);
    const messages: ModelMessage[] = [
      { role: "user", content: "make a file" },
      ...first.response.messages,
      { role: "user", content: "never mind" },
    ];
    const second = await generateText({ model, messages });
    expect(second.text).toBe("Fine, something else.");
    expect(existsSync(join(bed.cwd, "skipped.txt"))).toBe(false);
    await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);
  });

  it("refuses toolApproval with canUseTool, and an unknown value", async () => {
    await using bed = await testBed([]);
    const agent = createCodeAgent();
    await expect(
      generateText({
        model: agent("claude", {
          ...bed.options({ canUseTool: () => ({ behavior: "allow" }) }),
          toolApproval: "ai-sdk",
        }),
        prompt: "x",
      }),
    ).rejects.toBeInstanceOf(InvalidOptionsError);
    await expect(
      generateText({
        model: agent("claude", { ...bed.options(), toolApproval: "yes" as never }),
        prompt: "x",
      }),
    ).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});

/** As the codex e2e approval tests: commands may write the workspace once approved. */
const WRITABLE = { sandboxMode: "workspace-write" } as const;

describe(`toolApproval "ai-sdk" over codex ${CODEX_CLI_VERSION} (ai ${AI_MAJOR})`, () => {
  it("a command approval: request, then the approving call runs it and finishes the turn", async () => {
    await using bed = await codexBed([{ execCommand: { cmd: "touch approved.txt" } }, { text: "done" }]);
    const agent = createCodeAgent();
    const model = agent("codex", { ...bed.options({ codex: WRITABLE }), toolApproval: "ai-sdk" });
    const first = await generateText({ model, prompt: "make a file" });
    expect(first.finishReason).toBe("tool-calls");
    const request = approvalOf(first.content);
    expect(request.toolCall).toMatchObject({ toolName: "Bash", providerExecuted: true });
    expect(existsSync(join(bed.cwd, "approved.txt"))).toBe(false);
    const second = await generateText({
      model,
      messages: answered("make a file", first, request.approvalId, true),
    });
    expect(existsSync(join(bed.cwd, "approved.txt"))).toBe(true);
    expect(second.text).toBe("done");
    expect(second.content.find((p) => p.type === "tool-result")).toMatchObject({
      toolCallId: request.toolCall.toolCallId,
    });
    await expect.poll(() => runningCliProcesses(), { timeout: 15_000 }).toBe(0);
  });

  it("a denied command never runs", async () => {
    await using bed = await codexBed([{ execCommand: { cmd: "touch denied.txt" } }, { text: "skipped" }]);
    const agent = createCodeAgent();
    const model = agent("codex", { ...bed.options({ codex: WRITABLE }), toolApproval: "ai-sdk" });
    const first = await generateText({ model, prompt: "make a file" });
    const request = approvalOf(first.content);
    const second = await generateText({
      model,
      messages: answered("make a file", first, request.approvalId, false, "no"),
    });
    expect(second.text).toBe("skipped");
    expect(existsSync(join(bed.cwd, "denied.txt"))).toBe(false);
    await expect.poll(() => runningCliProcesses(), { timeout: 15_000 }).toBe(0);
  });
});

describe(`toolApproval "ai-sdk" over acp/claude-code-acp ${CLAUDE_CODE_ACP_VERSION} (ai ${AI_MAJOR})`, () => {
  it("the agent's session/request_permission: request, then the approving call runs the command", async () => {
    // Answered by what is asked: Claude Code makes requests of its own now and then (titles), which
    // must not take the scripted answers.
    await using bed = await claudeAcpBed([], (request) => {
      if (JSON.stringify(request.body).includes("tool_result")) return { text: "done" };
      if (request.lastUserText.includes("run it"))
        return {
          toolUse: { name: "mcp__acp__Bash", input: { command: "echo acp-ok > ok.txt", timeout: 10_000 } },
        };
      return { text: "OK" };
    });
    const agent = createCodeAgent();
    const model = agent("acp/claude-code-acp", { ...bed.options(), toolApproval: "ai-sdk" });
    const first = await generateText({ model, prompt: "run it" });
    expect(first.finishReason).toBe("tool-calls");
    const request = approvalOf(first.content);
    expect(request.toolCall).toMatchObject({ toolName: "Bash", providerExecuted: true });
    expect(existsSync(join(bed.cwd, "ok.txt"))).toBe(false);
    const second = await generateText({
      model,
      messages: answered("run it", first, request.approvalId, true),
    });
    expect(existsSync(join(bed.cwd, "ok.txt"))).toBe(true);
    expect(second.text).toBe("done");
    await expect.poll(() => runningAgents(), { timeout: 15_000 }).toBe(0);
  });
});

describe(`toolApproval "ai-sdk" on cursor (ai ${AI_MAJOR})`, () => {
  it("is refused: Cursor's print mode has no permission requests", async () => {
    await using bed = cursorBed();
    const agent = createCodeAgent();
    // Cursor takes no canUseTool, which the flow needs: refused before any process starts.
    const model = agent("cursor", { ...bed.options(), toolApproval: "ai-sdk" });
    const error = await generateText({ model, prompt: "hi" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedOptionsError);
    expect(String(error)).toContain("canUseTool");
    expect(bed.invocations()).toEqual([]);
  });
});
