/**
 * Type-level cases (checked by `tsc`, never run): a model's settings in the AI SDK provider are the
 * options of the backend its id names, so an option that backend does not take is a compile error.
 */
import { codeAgent, createCodeAgent } from "../../src/ai-sdk/index.js";

export function claudeModelsTakeClaudeOptions(): void {
  codeAgent("claude", { allowedTools: ["Bash"], permissionMode: "acceptEdits", toolApproval: "ai-sdk" });
  codeAgent("claude/opus", { systemPrompt: "be brief", includePartialMessages: true });
  // @ts-expect-error: Codex's own section
  codeAgent("claude", { codex: { sandboxMode: "workspace-write" } });
}

export function codexModelsTakeCodexOptions(): void {
  codeAgent("codex/gpt-5.1-codex", { codex: { sandboxMode: "workspace-write" }, cwd: "/srv/repo" });
  // @ts-expect-error: Claude's tool lists
  codeAgent("codex/gpt-5.1-codex", { allowedTools: ["Bash"] });
  // @ts-expect-error: Claude's permission modes
  codeAgent("codex", { permissionMode: "plan" });
}

export function acpModelsTakeAcpOptions(): void {
  codeAgent("acp/gemini", { acp: { mode: "default" }, canUseTool: () => ({ behavior: "allow" }) });
  // @ts-expect-error: Claude's system prompt
  codeAgent("acp/qwen", { systemPrompt: "x" });
  // @ts-expect-error: not an ACP preset
  codeAgent("acp/nonesuch");
}

export function cursorModelsTakeCursorOptions(): void {
  codeAgent("cursor/sonnet-4", { cursor: { apiKey: "k" } });
  // @ts-expect-error: no permission callback on Cursor
  codeAgent("cursor", { canUseTool: () => ({ behavior: "allow" }) });
}

export function providerSettingsEverywhere(): void {
  const agent = createCodeAgent({ cwd: "/srv/repo" });
  agent("codex", { resumeFromHistory: false });
  agent.languageModel("claude", { sdkTools: {} });
  // @ts-expect-error: not one of the approval routes
  agent("claude", { toolApproval: "yes" });
}
