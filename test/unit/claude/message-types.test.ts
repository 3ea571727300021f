/**
 * Typed messages: every stdout kind claude 2.1.330 was seen to emit (test/fixtures/claude/shapes/
 * stdout_kinds.json, captured offline against the scripted model) parses to a typed variant, the
 * typed fields are where the types say, and every message type of the official SDK 0.3.330's
 * `SDKMessage` union and every hook event of its `HookInput` union has a type here.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as official from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { CLAUDE_EVENT_LINE_TYPES, CLAUDE_SYSTEM_SUBTYPES } from "../../../src/backends/claude/events.js";
import {
  HOOK_EVENTS,
  type HookEventName,
  type HookInputByEvent,
  type HookMap,
  type KnownSystemSubtype,
  type SystemMessageDataMap,
} from "../../../src/backends/claude/index.js";
import { parseClaudeMessage } from "../../../src/backends/claude/message-parser.js";
import { isSystemMessage, type Message } from "../../../src/index.js";

const KINDS = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../fixtures/claude/shapes/stdout_kinds.json"), "utf8"),
) as Record<string, Record<string, unknown>>;

/**
 * Fields each captured subtype must carry, per our types (the keys are checked by the compiler
 * against the typed `data`, the values against the capture at run time).
 */
const REQUIRED: { [S in KnownSystemSubtype]?: readonly (keyof SystemMessageDataMap[S] & string)[] } = {
  init: [
    "cwd",
    "session_id",
    "tools",
    "mcp_servers",
    "model",
    "permissionMode",
    "claude_code_version",
    "skills",
  ],
  status: ["status"],
  compact_boundary: ["compact_metadata"],
  api_retry: ["attempt", "max_retries", "retry_delay_ms", "error_status", "error"],
  hook_started: ["hook_id", "hook_name", "hook_event"],
  hook_response: ["hook_id", "hook_name", "hook_event", "output", "stdout", "stderr", "outcome"],
  task_started: ["task_id", "description"],
  task_updated: ["task_id", "patch"],
  task_notification: ["task_id", "status", "output_file", "summary"],
  background_tasks_changed: ["tasks"],
  session_state_changed: ["state"],
  session_title_changed: ["title"],
  permission_denied: ["tool_name", "tool_use_id", "message"],
  informational: ["content", "level"],
  command_lifecycle: ["command_uuid", "state"],
  tool_use_summary: ["summary", "preceding_tool_use_ids"],
  conversation_reset: ["new_conversation_id"],
};

describe("typed messages from claude 2.1.330 captures", () => {
  it("parses every captured kind to a typed variant, never to unknown", () => {
    const seenSubtypes = new Set<string>();
    for (const [kind, raw] of Object.entries(KINDS)) {
      const message = parseClaudeMessage(raw);
      expect(message.type, kind).not.toBe("unknown");
      expect(message.raw).toBe(raw);
      if (raw.type === "system" || CLAUDE_EVENT_LINE_TYPES.has(raw.type as string)) {
        const subtype = (raw.type === "system" ? raw.subtype : raw.type) as string;
        expect(message).toMatchObject({ type: "system", subtype, data: raw });
        seenSubtypes.add(subtype);
      } else {
        expect(message.type).toBe(raw.type);
      }
    }
    for (const [subtype, fields] of Object.entries(REQUIRED)) {
      expect(seenSubtypes, `no capture of ${subtype}`).toContain(subtype);
      const raw = Object.values(KINDS).find((k) => (k.type === "system" ? k.subtype : k.type) === subtype);
      for (const field of fields) expect(raw, `${subtype}.${field}`).toHaveProperty(field);
    }
  });

  it("narrows a system message to its typed data with isSystemMessage", () => {
    const started = parseClaudeMessage(KINDS["system/task_started"] as Record<string, unknown>);
    const lifecycle = parseClaudeMessage(KINDS.command_lifecycle as Record<string, unknown>);
    const seen: string[] = [];
    for (const m of [started, lifecycle] as Message[]) {
      if (isSystemMessage(m, "task_started")) seen.push(`task ${m.data.task_id} ${m.data.description}`);
      if (isSystemMessage(m, "command_lifecycle"))
        seen.push(`command ${m.data.command_uuid} ${m.data.state}`);
    }
    expect(seen).toEqual([
      `task ${KINDS["system/task_started"]?.task_id} ${KINDS["system/task_started"]?.description}`,
      `command ${KINDS.command_lifecycle?.command_uuid} queued`,
    ]);
    expect(isSystemMessage(started)).toBe(true);
    expect(isSystemMessage(started, "init")).toBe(false);
  });

  it("keeps unknown line types and unknown system subtypes as they are", () => {
    expect(parseClaudeMessage({ type: "brand_new_event", x: 1 })).toMatchObject({
      type: "unknown",
      wireType: "brand_new_event",
    });
    const future = { type: "system", subtype: "brand_new_subtype", x: 1 };
    expect(parseClaudeMessage(future)).toEqual({
      type: "system",
      subtype: "brand_new_subtype",
      data: future,
      raw: future,
    });
  });
});

/** The official SDK's type declarations, read from the installed package (not typed by hand). */
function officialDeclarations(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve("@anthropic-ai/claude-agent-sdk");
  return readFileSync(join(entry, "..", "sdk.d.ts"), "utf8");
}

describe("conformance with the official SDK 0.3.330's declarations", () => {
  const dts = officialDeclarations();

  it("types every message of its SDKMessage union", () => {
    const union = /export declare type SDKMessage = ([^;]+);/.exec(dts)?.[1] ?? "";
    const names = union.split("|").map((n) => n.trim());
    expect(names.length).toBeGreaterThan(30);
    const ours = new Set<string>(CLAUDE_SYSTEM_SUBTYPES);
    const missing: string[] = [];
    for (const name of names) {
      const body = new RegExp(`declare type ${name} = (\\{[\\s\\S]*?\\n\\});`).exec(dts)?.[1];
      if (body === undefined) continue; // unions of named types (SDKResultMessage) are covered by their members
      const type = /\n {4}type: '([a-z_]+)';/.exec(body)?.[1];
      const subtype = /\n {4}subtype: '([a-z_]+)';/.exec(body)?.[1];
      if (type === undefined) continue;
      if (["user", "assistant", "result", "stream_event"].includes(type)) continue;
      const key = type === "system" ? subtype : type;
      if (key === undefined || !ours.has(key)) missing.push(`${name} (${key})`);
    }
    expect(missing).toEqual([]);
  });

  it("has the same hook events, each with a typed input", () => {
    expect([...HOOK_EVENTS].sort()).toEqual([...official.HOOK_EVENTS].sort());
    const inputs = [...dts.matchAll(/declare type (\w+)HookInput = [\s\S]*?hook_event_name: '(\w+)'/g)].map(
      (m) => m[2],
    );
    expect(new Set(inputs)).toEqual(new Set(official.HOOK_EVENTS));
    // Compile-time: every event name of ours has an input type, and a HookMap entry types its input.
    const everyEvent: Record<HookEventName, true> = Object.fromEntries(
      HOOK_EVENTS.map((e) => [e, true]),
    ) as never;
    expect(Object.keys(everyEvent)).toHaveLength(official.HOOK_EVENTS.length);
    const map: HookMap = {
      PreToolUse: [{ hooks: [(input) => ({ reason: input.tool_name })] }],
      SubagentStop: [{ hooks: [(input) => ({ reason: input.agent_transcript_path })] }],
    };
    const example: HookInputByEvent["SessionStart"]["source"] = "resume";
    expect(Object.keys(map)).toEqual(["PreToolUse", "SubagentStop"]);
    expect(example).toBe("resume");
  });
});
