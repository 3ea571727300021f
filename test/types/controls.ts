/**
 * Type-level cases (checked by `tsc`, never run): a control the backend lacks is a compile-time
 * error where the backend is known statically; present, and checked at run time, where it is not.
 */
import { type AgentOptions, AgentSdkClient, type BackendKind, type Query, query } from "../../src/index.js";

declare const anyOptions: AgentOptions;
declare const someBackend: BackendKind;

export async function claudeQueryHasEveryControl(): Promise<void> {
  const q = query({ prompt: "hi" });
  await q.supportedModels();
  await q.rewindFiles("u1");
  await q.setMaxThinkingTokens(100, "summarized");
  await q.setPermissionMode("plan");
  await q.setModel("sonnet");
  await q.controlRequest({ subtype: "get_context_usage" });
  await q.interrupt();
  const explicit = query({ prompt: "hi", options: { backend: "claude", model: "sonnet" } });
  await explicit.getContextUsage();
}

export async function codexQueryHasNoClaudeControls(): Promise<void> {
  const q = query({ prompt: "hi", options: { backend: "codex" } });
  // @ts-expect-error: Claude's control protocol
  await q.supportedModels();
  // @ts-expect-error: Claude's control protocol
  await q.rewindFiles("u1");
  // @ts-expect-error: runtime config changes (Claude)
  await q.setMaxThinkingTokens(100);
  // @ts-expect-error: runtime config changes (Claude)
  await q.setPermissionMode("plan");
  // @ts-expect-error: Claude's control protocol
  await q.controlRequest({ subtype: "x" });
  // @ts-expect-error: Claude's control protocol
  await q.getContextUsage();
  // What Codex has stays.
  await q.setModel("gpt-5");
  await q.mcpServerStatus();
  await q.interrupt();
  await q.serverInfo();
  for await (const message of q) void message.type;
}

export async function cursorLacksModelSwitching(): Promise<void> {
  const cursor = query({ prompt: "hi", options: { backend: "cursor" } });
  // @ts-expect-error: Cursor cannot switch models
  await cursor.setModel("x");
  // @ts-expect-error: Cursor has no MCP status
  await cursor.mcpServerStatus();
  // @ts-expect-error: one process per turn: no input into a running query
  await cursor.streamInput((async function* () {})());
  await cursor.interrupt();
  const acp = new AgentSdkClient({ backend: "acp", acp: { command: "agent" } });
  // ACP: where the agent offers a model choice (UnsupportedFeatureError naming the agent otherwise).
  await acp.setModel("x");
  await acp.setPermissionMode("plan");
  // @ts-expect-error: Claude's control protocol
  await acp.supportedAgents();
  await acp.interrupt();
}

export async function codexClientHasNoClaudeControls(): Promise<void> {
  const client = new AgentSdkClient({ backend: "codex" });
  // @ts-expect-error: Claude's control protocol
  await client.supportedModels();
  // @ts-expect-error: Claude's control protocol
  await client.rewindFiles("u1");
  // @ts-expect-error: runtime config changes (Claude)
  await client.setMaxThinkingTokens(100);
  // @ts-expect-error: Claude's control protocol
  await client.reloadPlugins();
  await client.setModel("gpt-5");
  await client.getMcpStatus();
  await client.run("hi");
}

export async function claudeClientHasEveryControl(): Promise<void> {
  const client = new AgentSdkClient();
  await client.supportedModels();
  await client.rewindFiles("u1");
  await client.setMaxThinkingTokens(null);
  await client.setPermissionMode("default");
  const named = new AgentSdkClient({ backend: "claude" });
  await named.accountInfo();
}

export async function unknownBackendHasEveryControl(): Promise<void> {
  // Not known statically: every control is there, and checked at run time.
  const q = query({ prompt: "hi", options: anyOptions });
  await q.supportedModels();
  await q.rewindFiles("u1");
  const client = new AgentSdkClient(anyOptions);
  await client.supportedModels();
  const byVariable = new AgentSdkClient({ backend: someBackend });
  await byVariable.setMaxThinkingTokens(1);
}

export function aCodexQueryGoesWhereAnyQueryGoes(): void {
  const takesAny = (q: Query, c: AgentSdkClient): [Query, AgentSdkClient] => [q, c];
  takesAny(query({ prompt: "hi", options: { backend: "codex" } }), new AgentSdkClient({ backend: "cursor" }));
}
