/**
 * Codex approval requests → `canUseTool` names and inputs, and callback results → decisions.
 */

import { describe, expect, it } from "vitest";
import { approvalDecision, approvalPrompt, reviewDecision } from "../../../src/backends/codex/approvals.js";
import { shellJoin } from "../../../src/backends/shell-command.js";
import { type AppServerLine, appServerCapture } from "./fixtures.js";

/** An item lookup over a map of items by id. */
function lookup(items: Map<string, Record<string, unknown>>) {
  return {
    byId: (id: string) => items.get(id),
    latest: (predicate: (item: Record<string, unknown>) => boolean) =>
      [...items.values()].reverse().find(predicate),
  };
}

const remember = [
  {
    type: "addRules" as const,
    rules: [{ toolName: "Bash" }],
    behavior: "allow" as const,
    destination: "session" as const,
  },
];

describe("decision mapping", () => {
  it("allow → accept, allow with updatedPermissions → acceptForSession", () => {
    expect(approvalDecision({ behavior: "allow" })).toBe("accept");
    expect(approvalDecision({ behavior: "allow", updatedPermissions: [] })).toBe("accept");
    expect(approvalDecision({ behavior: "allow", updatedPermissions: remember })).toBe("acceptForSession");
  });

  it("deny → decline, deny with interrupt → cancel", () => {
    expect(approvalDecision({ behavior: "deny", message: "no" })).toBe("decline");
    expect(approvalDecision({ behavior: "deny", message: "no", interrupt: false })).toBe("decline");
    expect(approvalDecision({ behavior: "deny", message: "no", interrupt: true })).toBe("cancel");
  });

  it("legacy requests use the ReviewDecision vocabulary, and a denial carries its message", () => {
    expect(reviewDecision({ behavior: "allow" })).toBe("approved");
    expect(reviewDecision({ behavior: "allow", updatedPermissions: remember })).toBe("approved_for_session");
    expect(reviewDecision({ behavior: "deny", message: "not that" })).toEqual({
      denied: { rejection: "not that" },
    });
    expect(reviewDecision({ behavior: "deny", message: "stop", interrupt: true })).toBe("abort");
  });
});

describe("approval prompts (codex 0.169.0 requests)", () => {
  const { first } = appServerCapture();
  const requests = first.filter(
    (l: AppServerLine) => l.dir === "server->client" && l.msg.method && l.msg.id !== undefined,
  );
  const items = new Map<string, Record<string, unknown>>();
  for (const line of first) {
    const params = line.msg.params as { item?: { id: string } } | undefined;
    if (line.msg.method === "item/started" && params?.item) items.set(params.item.id, params.item);
  }
  const prompt = (index: number) => {
    const msg = requests[index]!.msg;
    return approvalPrompt(String(msg.method), msg.params as Record<string, unknown>, lookup(items));
  };

  it("a command approval is Bash with the command the model meant, cwd and the wrapper's argv", () => {
    const p = prompt(0)!;
    expect(p.toolName).toBe("Bash");
    expect(p.input).toEqual({
      command: "touch approved-file.txt && echo created",
      cwd: "/tmp/codex-feas/run/work",
      argv: ["/bin/bash", "-c", "touch approved-file.txt && echo created"],
    });
    expect(p.toolUseId).toBe("call_15");
    expect(p.suggestions).toEqual([
      {
        type: "addRules",
        rules: [{ toolName: "Bash", ruleContent: "touch approved-file.txt && echo created" }],
        behavior: "allow",
        destination: "session",
      },
    ]);
    expect(p.answer({ behavior: "allow" })).toEqual({ decision: "accept" });
    expect(p.answer({ behavior: "allow", updatedPermissions: p.suggestions })).toEqual({
      decision: "acceptForSession",
    });
    expect(p.decline).toEqual({ decision: "decline" });
  });

  it("an escalation request passes its reason as the description", () => {
    expect(prompt(2)).toMatchObject({
      toolName: "Bash",
      description: "Fake model wants to run this outside the sandbox",
    });
  });

  it("a file-change approval adding one file is Write with the changes of the item it is about", () => {
    const p = prompt(3)!;
    expect(p.toolName).toBe("Write");
    expect(p.input).toEqual({
      file_path: "/tmp/codex-feas/run/work/patched-by-appserver.txt",
      content: "hello from fake model\n",
      changes: [
        {
          path: "/tmp/codex-feas/run/work/patched-by-appserver.txt",
          kind: "add",
          diff: "hello from fake model\n",
        },
      ],
      reason: null,
      grantRoot: null,
    });
    expect(p.answer({ behavior: "deny", message: "no", interrupt: true })).toEqual({ decision: "cancel" });
  });

  it("legacy execCommandApproval: the script of a bash -lc argv is the command", () => {
    const p = approvalPrompt(
      "execCommandApproval",
      {
        conversationId: "c",
        callId: "call_9",
        approvalId: null,
        command: ["bash", "-lc", "echo 'hi'"],
        cwd: "/w",
        reason: null,
        parsedCmd: [],
      },
      lookup(new Map()),
    )!;
    expect(p).toMatchObject({
      toolName: "Bash",
      input: { command: "echo 'hi'", cwd: "/w", argv: ["bash", "-lc", "echo 'hi'"] },
      toolUseId: "call_9",
    });
    expect(p.answer({ behavior: "deny", message: "nope" })).toEqual({
      decision: { denied: { rejection: "nope" } },
    });
    expect(p.accept).toEqual({ decision: "approved" });
  });

  it("legacy applyPatchApproval of several files is Edit listing every change", () => {
    const p = approvalPrompt(
      "applyPatchApproval",
      {
        conversationId: "c",
        callId: "call_2",
        fileChanges: {
          "/w/a.txt": { type: "add", content: "x\n" },
          "/w/b.txt": { type: "update", unified_diff: "@@", move_path: "/w/c.txt" },
        },
        reason: null,
        grantRoot: "/w",
      },
      lookup(new Map()),
    )!;
    expect(p.toolName).toBe("Edit");
    expect(p.input).toEqual({
      file_path: "/w/a.txt",
      changes: [
        { path: "/w/a.txt", kind: "add", diff: "x\n" },
        { path: "/w/b.txt", kind: "update", diff: "@@", movePath: "/w/c.txt" },
      ],
      reason: null,
      grantRoot: "/w",
    });
    expect(p.blockedPath).toBe("/w");
    expect(p.answer({ behavior: "allow" })).toEqual({ decision: "approved" });
  });

  it("a permissions request grants exactly what was asked on allow, nothing on deny", () => {
    const p = approvalPrompt(
      "item/permissions/requestApproval",
      {
        itemId: "i",
        cwd: "/w",
        reason: "needs network",
        permissions: { network: { enabled: true }, fileSystem: null },
      },
      lookup(new Map()),
    )!;
    expect(p.toolName).toBe("request_permissions");
    expect(p.answer({ behavior: "allow" })).toEqual({
      permissions: { network: { enabled: true } },
      scope: "turn",
    });
    expect(p.answer({ behavior: "allow", updatedPermissions: p.suggestions })).toMatchObject({
      scope: "session",
    });
    expect(p.answer({ behavior: "deny", message: "" })).toEqual({ permissions: {}, scope: "turn" });
  });

  it("an MCP tool approval (an elicitation with codex_approval_kind) is mcp__<server>__<tool> with its arguments", () => {
    const call = { type: "mcpToolCall", id: "call_7", server: "echo", tool: "echo", status: "inProgress" };
    const params = {
      threadId: "t",
      turnId: "u",
      serverName: "echo",
      mode: "form",
      _meta: { codex_approval_kind: "mcp_tool_call", tool_name: "echo", tool_params: { text: "hi" } },
      message: 'Allow the echo MCP server to run tool "echo"?',
      requestedSchema: { type: "object", properties: {} },
    };
    const p = approvalPrompt("mcpServer/elicitation/request", params, lookup(new Map([["call_7", call]])))!;
    expect(p).toMatchObject({
      toolName: "mcp__echo__echo",
      input: { text: "hi" },
      toolUseId: "call_7",
      mcpServer: { name: "echo" },
      description: 'Allow the echo MCP server to run tool "echo"?',
    });
    expect(p.answer({ behavior: "allow" })).toEqual({ action: "accept", content: {}, _meta: null });
    expect(p.answer({ behavior: "deny", message: "no" })).toEqual({
      action: "decline",
      content: null,
      _meta: null,
    });
    expect(p.answer({ behavior: "deny", message: "no", interrupt: true })).toMatchObject({
      action: "cancel",
    });
    // A form an MCP server wants filled in is not an approval.
    expect(
      approvalPrompt("mcpServer/elicitation/request", { ...params, _meta: null }, lookup(new Map())),
    ).toBeUndefined();
  });

  it("anything else is not an approval request", () => {
    expect(approvalPrompt("item/tool/requestUserInput", {}, lookup(new Map()))).toBeUndefined();
  });

  it("shellJoin leaves plain words alone", () => {
    expect(shellJoin(["ls", "-la", "/tmp/a_b.c"])).toBe("ls -la /tmp/a_b.c");
    expect(shellJoin(["echo", "a b"])).toBe("echo 'a b'");
  });
});
