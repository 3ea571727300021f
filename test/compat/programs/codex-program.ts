// Written against the official @openai/codex-sdk: compiled once against it and once with the module
// name resolved to code-agent-sdk/compat/codex-sdk (test/compat/types.test.ts). Not executed.
import {
  type AgentMessageItem,
  type ApprovalMode,
  Codex,
  type CodexOptions,
  type CommandExecutionItem,
  type ErrorItem,
  type FileChangeItem,
  type Input,
  type ItemCompletedEvent,
  type ItemStartedEvent,
  type ItemUpdatedEvent,
  type McpToolCallItem,
  type ModelReasoningEffort,
  type ReasoningItem,
  type RunResult,
  type RunStreamedResult,
  type SandboxMode,
  type Thread,
  type ThreadError,
  type ThreadErrorEvent,
  type ThreadEvent,
  type ThreadItem,
  type ThreadOptions,
  type ThreadStartedEvent,
  type TodoListItem,
  type TurnCompletedEvent,
  type TurnFailedEvent,
  type TurnOptions,
  type TurnStartedEvent,
  type Usage,
  type UserInput,
  type WebSearchItem,
  type WebSearchMode,
} from "@openai/codex-sdk";

const clientOptions: CodexOptions = {
  codexPathOverride: "/usr/local/bin/codex",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "sk-test",
  config: { model_reasoning_summary: "auto", tools: { web_search: true }, list: [1, "a", true] },
  configOverrides: ["hide_agent_reasoning=true"],
  env: { PATH: "/usr/bin" },
};
const approval: ApprovalMode = "on-request";
const sandbox: SandboxMode = "workspace-write";
const effort: ModelReasoningEffort = "high";
const search: WebSearchMode = "cached";
const threadOptions: ThreadOptions = {
  model: "gpt-5.5",
  threadSource: "ci",
  sandboxMode: sandbox,
  workingDirectory: "/tmp",
  skipGitRepoCheck: true,
  modelReasoningEffort: effort,
  networkAccessEnabled: false,
  webSearchMode: search,
  webSearchEnabled: true,
  approvalPolicy: approval,
  additionalDirectories: ["/srv"],
};
const turnOptions: TurnOptions = { outputSchema: { type: "object" }, signal: new AbortController().signal };
const input: Input = [
  { type: "text", text: "hi" },
  { type: "local_image", path: "/tmp/a.png" } satisfies UserInput,
];

function describeItem(item: ThreadItem): string {
  switch (item.type) {
    case "agent_message":
      return (item satisfies AgentMessageItem).text;
    case "reasoning":
      return (item satisfies ReasoningItem).text;
    case "command_execution": {
      const command: CommandExecutionItem = item;
      return `${command.command} ${command.aggregated_output} ${command.exit_code ?? ""} ${command.status}`;
    }
    case "file_change": {
      const change: FileChangeItem = item;
      return change.changes.map((c) => `${c.kind} ${c.path}`).join(",") + change.status;
    }
    case "mcp_tool_call": {
      const call: McpToolCallItem = item;
      return `${call.server}.${call.tool} ${JSON.stringify(call.arguments)} ${call.error?.message ?? ""} ${call.status}`;
    }
    case "web_search":
      return (item satisfies WebSearchItem).query;
    case "todo_list":
      return (item satisfies TodoListItem).items
        .map((t) => `${t.completed ? "x" : " "} ${t.text}`)
        .join("\n");
    case "error":
      return (item satisfies ErrorItem).message;
  }
}

function describeEvent(event: ThreadEvent): string {
  switch (event.type) {
    case "thread.started":
      return (event satisfies ThreadStartedEvent).thread_id;
    case "turn.started":
      return (event satisfies TurnStartedEvent).type;
    case "turn.completed": {
      const usage: Usage = (event satisfies TurnCompletedEvent).usage;
      return `${usage.input_tokens} ${usage.cached_input_tokens} ${usage.cache_write_input_tokens} ${usage.output_tokens} ${usage.reasoning_output_tokens}`;
    }
    case "turn.failed": {
      const error: ThreadError = (event satisfies TurnFailedEvent).error;
      return error.message;
    }
    case "item.started":
      return describeItem((event satisfies ItemStartedEvent).item);
    case "item.updated":
      return describeItem((event satisfies ItemUpdatedEvent).item);
    case "item.completed":
      return describeItem((event satisfies ItemCompletedEvent).item);
    case "error":
      return (event satisfies ThreadErrorEvent).message;
  }
}

export async function program(): Promise<void> {
  const codex = new Codex(clientOptions);
  const thread: Thread = codex.startThread(threadOptions);
  const result: RunResult = await thread.run(input, turnOptions);
  console.log(result.finalResponse, result.items.map(describeItem), result.usage?.output_tokens, thread.id);
  const streamed: RunStreamedResult = await thread.runStreamed("again");
  for await (const event of streamed.events) console.log(describeEvent(event));
  const resumed = codex.resumeThread(thread.id ?? "x", { model: "gpt-5.4" });
  await resumed.run("more");
  new Codex().startThread();
}
