/**
 * Human-readable rendering of an agent's message stream: text as it arrives, one line per tool
 * call (updated with its outcome), thinking dimmed or hidden, a final summary line.
 */
import type {
  AssistantMessage,
  ContentBlock,
  Message,
  ResultMessage,
  StreamEventMessage,
  ToolResultBlock,
  ToolUseBlock,
  UserMessage,
} from "../messages.js";
import type { BackendKind } from "../options.js";
import { type LineHandle, type Screen, stripAnsi, truncate } from "./screen.js";

/** How a tool call ended. */
export type ToolOutcome = "ok" | "error" | "denied" | "cancelled";

interface ToolLine {
  name: string;
  summary: string;
  handle: LineHandle | undefined;
  outcome: ToolOutcome | undefined;
  nested: boolean;
}

/** A streamed content block being printed. */
interface StreamingBlock {
  kind: "text" | "thinking";
  text: string;
  shown: boolean;
  /** The API message (Claude) or item (Codex) the block belongs to, when the events say. */
  messageId: string | undefined;
}

export interface RendererOptions {
  screen: Screen;
  /** Show thinking (dimmed). Default: hidden. */
  showThinking: boolean;
  backend: BackendKind;
  /** The ACP agent (`--agent`), repeated in the resume hint. */
  agent?: string | undefined;
  /**
   * Set in demo mode: the model is scripted (no real model name, no cost shown) and the session
   * cannot be resumed (no resume hint).
   */
  demo?: boolean;
}

/** What a command-line user does when the agent CLI is not logged in. */
const LOGIN_HINT: Record<BackendKind, string> = {
  claude: "Not logged in: set ANTHROPIC_API_KEY, or run `claude` once in a terminal and log in with /login.",
  codex: "Not logged in: set OPENAI_API_KEY (or CODEX_API_KEY), or run `codex login`.",
  cursor: "Not logged in: set CURSOR_API_KEY, or run `cursor-agent login`.",
  acp: "Not logged in: log the agent in with its own command (e.g. `gemini`, `copilot`), or set its API key variable.",
};

/**
 * Renders one session's messages. Feed every message to {@link handle}; tell it about permission
 * denials with {@link markDenied}.
 */
export class Renderer {
  private readonly screen: Screen;
  private readonly tools = new Map<string, ToolLine>();
  private readonly denied = new Map<string, string>();
  /** Text/thinking already printed from stream events, by API message id, to skip in the whole message. */
  private readonly streamed = new Map<string, string[]>();
  /** Blocks being streamed, by `<message id>:<index>`. */
  private readonly blocks = new Map<string, StreamingBlock>();
  private currentMessageId: string | undefined;
  private headerShown = false;
  /** An assistant message of this turn reported `authentication_failed`. */
  private notLoggedIn = false;
  /** Whether the last thing printed was assistant text (to separate it from what follows). */
  private inText = false;
  /** The user interrupted the running turn: its result is shown as an interruption, not a failure. */
  private interrupted = false;

  constructor(private readonly options: RendererOptions) {
    this.screen = options.screen;
  }

  /** A turn starts: show the spinner. */
  turnStarted(): void {
    this.screen.spinner("waiting for the model");
  }

  /** Records that the permission layer denied this tool call (so its line says "denied"). */
  markDenied(toolUseId: string | undefined, reason: string): void {
    if (toolUseId) this.denied.set(toolUseId, reason);
  }

  /** The user interrupted the running turn (Ctrl-C). */
  markInterrupted(): void {
    this.interrupted = true;
  }

  /** Prints a dimmed note line (demo messages, interrupts). */
  note(text: string): void {
    this.endText();
    this.screen.line(this.screen.style.dim(text));
  }

  handle(message: Message): void {
    switch (message.type) {
      case "system":
        if (message.subtype === "init" && !this.headerShown) {
          this.headerShown = true;
          const model = typeof message.data.model === "string" ? message.data.model : undefined;
          const cwd = typeof message.data.cwd === "string" ? message.data.cwd : undefined;
          // The demo's model is a script: its name is not a real model's and must not look like one.
          const modelPart = this.options.demo ? "scripted model (demo)" : model && `model ${model}`;
          const parts = [this.options.backend, modelPart, cwd].filter(Boolean);
          this.screen.line(this.screen.style.dim(`● ${parts.join(" · ")}`));
        } else if (message.subtype === "api_retry") {
          const attempt = message.data.attempt ?? message.data.retry_attempt;
          this.screen.spinner(
            `API error, retrying${attempt !== undefined ? ` (attempt ${String(attempt)})` : ""}`,
          );
        }
        return;
      case "stream_event":
        this.streamEvent(message);
        return;
      case "assistant":
        this.assistant(message);
        return;
      case "user":
        this.user(message);
        return;
      case "result":
        this.result(message);
        return;
      default:
        return;
    }
  }

  /** The final line of a turn. */
  private result(message: ResultMessage): void {
    this.endText();
    for (const [id, tool] of this.tools) {
      if (tool.outcome === undefined) this.finishTool(id, tool, "cancelled", "");
    }
    this.screen.spinner(undefined);
    const { style } = this.screen;
    const parts: string[] = [];
    // Only Claude Code counts round trips; elsewhere the count is null (Cursor's stand-in reports 0).
    if (message.numTurns !== null && message.numTurns > 0)
      parts.push(`${message.numTurns} turn${message.numTurns === 1 ? "" : "s"}`);
    parts.push(formatDuration(message.durationMs));
    // A scripted model's usage is made up, so the demo shows no cost rather than a fake one.
    if (this.options.demo) parts.push("scripted, no cost");
    else if (message.totalCostUsd !== null) parts.push(`$${message.totalCostUsd.toFixed(4)}`);
    let session = "";
    if (message.sessionId) {
      const backendFlag =
        this.options.backend === "acp" && this.options.agent !== undefined
          ? `--agent ${quoteArg(this.options.agent)} `
          : this.options.backend === "claude"
            ? ""
            : `--backend ${this.options.backend} `;
      session = this.options.demo
        ? `session ${message.sessionId}`
        : `resume: code-agent ${backendFlag}--resume ${message.sessionId}`;
    }
    const interrupted = this.interrupted;
    this.interrupted = false;
    const head = interrupted
      ? style.yellow("⏹ interrupted")
      : message.isError
        ? style.red(
            `✗ failed${message.subtype && message.subtype !== "success" ? ` (${message.subtype})` : ""}`,
          )
        : style.green("✓ done");
    if (message.isError && !interrupted) {
      const why = message.errors?.length ? message.errors.join("; ") : message.result;
      if (why) this.screen.line(style.red(`error: ${why}`));
      // "Please run /login" means the interactive claude: say what to do from a shell.
      if (this.notLoggedIn) this.screen.line(style.yellow(LOGIN_HINT[this.options.backend]));
    }
    this.notLoggedIn = false;
    const oneLine = `${head} ${style.dim(`· ${[...parts, ...(session ? [session] : [])].join(" · ")}`)}`;
    if (!this.screen.live || !session || stripAnsi(oneLine).length < this.screen.columns) {
      this.screen.line(oneLine);
    } else {
      // Keep the session id whole: it goes on a line of its own rather than wrapping.
      this.screen.line(`${head} ${style.dim(`· ${parts.join(" · ")}`)}`);
      this.screen.line(style.dim(`  ${session}`));
    }
    this.tools.clear();
    this.blocks.clear();
    this.streamed.clear();
  }

  private streamEvent(message: StreamEventMessage): void {
    const event = message.event;
    const type = event.type;
    if (type === "message_start") {
      const msg = event.message as { id?: unknown } | undefined;
      this.currentMessageId = typeof msg?.id === "string" ? msg.id : undefined;
      return;
    }
    // Claude: the message id comes from message_start; Codex names the item on every event.
    const messageId = typeof event.item_id === "string" ? event.item_id : this.currentMessageId;
    const index = typeof event.index === "number" ? event.index : 0;
    const key = `${messageId ?? ""}:${index}`;
    if (type === "content_block_start") {
      const block = event.content_block as { type?: unknown } | undefined;
      if (block?.type === "text" || block?.type === "thinking") {
        this.blocks.set(key, { kind: block.type, text: "", shown: false, messageId });
        if (block.type === "thinking" && !this.options.showThinking) this.screen.spinner("thinking");
      }
      return;
    }
    if (type === "content_block_delta") {
      const delta = event.delta as { type?: unknown; text?: unknown; thinking?: unknown } | undefined;
      const isText = delta?.type === "text_delta" && typeof delta.text === "string";
      const isThinking = delta?.type === "thinking_delta" && typeof delta.thinking === "string";
      if (!isText && !isThinking) return;
      let block = this.blocks.get(key);
      if (!block) {
        // Backends that only send deltas (no block start).
        block = { kind: isText ? "text" : "thinking", text: "", shown: false, messageId };
        this.blocks.set(key, block);
        if (isThinking && !this.options.showThinking) this.screen.spinner("thinking");
      }
      const piece = isText ? (delta.text as string) : (delta.thinking as string);
      block.text += piece;
      this.printDelta(block, piece);
      return;
    }
    if (type === "content_block_stop") {
      const block = this.blocks.get(key);
      this.blocks.delete(key);
      if (block) this.finishStreamedBlock(block);
    }
  }

  private printDelta(block: StreamingBlock, piece: string): void {
    if (block.kind === "thinking" && !this.options.showThinking) return;
    const { style } = this.screen;
    if (!block.shown) {
      block.shown = true;
      this.screen.spinner(undefined);
      if (block.kind === "thinking") {
        this.endText();
        this.screen.write(style.dim("✻ "));
      } else if (!this.inText) {
        this.screen.ensureLineStart();
      }
      this.inText = block.kind === "text";
    }
    this.screen.write(block.kind === "thinking" ? style.dim(piece) : piece);
  }

  private finishStreamedBlock(block: StreamingBlock): void {
    if (block.messageId && block.text !== "") {
      const list = this.streamed.get(block.messageId) ?? [];
      list.push(`${block.kind}:${block.text}`);
      this.streamed.set(block.messageId, list);
    }
    if (block.shown) {
      this.screen.ensureLineStart();
      if (block.kind === "thinking") this.inText = false;
    }
    this.screen.spinner("waiting for the model");
  }

  /**
   * True when this block of a whole message was already printed from stream events (then it is
   * not printed again). Claude sends the whole block before the block's `content_block_stop`, Codex
   * sends no stop at all, Cursor names no message: so blocks still streaming count too, matched by
   * message id when there is one, else by content.
   */
  private alreadyStreamed(messageId: string | undefined, kind: string, text: string): boolean {
    const candidates = [...this.blocks].filter(([, b]) => b.kind === kind && b.text === text);
    const match =
      candidates.find(([, b]) => messageId !== undefined && b.messageId === messageId) ?? candidates[0];
    if (match) {
      const [key, block] = match;
      this.blocks.delete(key);
      this.finishStreamedBlock({ ...block, messageId: undefined });
      return true;
    }
    if (!messageId) return false;
    const list = this.streamed.get(messageId);
    const i = list?.indexOf(`${kind}:${text}`) ?? -1;
    if (!list || i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  private assistant(message: AssistantMessage): void {
    if (message.error === "authentication_failed") this.notLoggedIn = true;
    const nested = message.parentToolUseId !== null;
    for (const block of message.content) this.assistantBlock(block, message, nested);
  }

  private assistantBlock(block: ContentBlock, message: AssistantMessage, nested: boolean): void {
    const { style } = this.screen;
    switch (block.type) {
      case "text": {
        if (block.text === "" || this.alreadyStreamed(message.messageId, "text", block.text)) return;
        if (nested) return; // a subagent's prose: its tool calls are shown, its answer comes back as a tool result
        this.screen.spinner(undefined);
        if (!this.inText) this.screen.ensureLineStart();
        this.screen.line(block.text.replace(/\n+$/, ""));
        this.inText = true;
        this.screen.spinner("waiting for the model");
        return;
      }
      case "thinking": {
        if (this.alreadyStreamed(message.messageId, "thinking", block.thinking)) return;
        if (!this.options.showThinking || block.thinking === "" || nested) return;
        this.endText();
        this.screen.line(style.dim(`✻ ${block.thinking.replace(/\n+$/, "")}`));
        return;
      }
      case "tool_use":
        this.toolStarted(block, nested);
        return;
      default:
        return;
    }
  }

  private user(message: UserMessage): void {
    if (typeof message.content === "string") return;
    for (const block of message.content) {
      if (block.type === "tool_result") this.toolFinished(block, message);
    }
  }

  private toolStarted(block: ToolUseBlock, nested: boolean): void {
    this.endText();
    this.screen.spinner(undefined);
    const tool: ToolLine = {
      name: displayToolName(block.name),
      summary: summarizeInput(block.name, block.input),
      handle: undefined,
      outcome: undefined,
      nested,
    };
    this.tools.set(block.id, tool);
    tool.handle = this.screen.markedLine(this.toolLine(tool, undefined, ""));
    this.screen.spinner(`running ${tool.name}`);
  }

  private toolFinished(block: ToolResultBlock, message: UserMessage): void {
    const tool = this.tools.get(block.toolUseId);
    if (!tool || tool.outcome !== undefined) return;
    const deniedReason = this.denied.get(block.toolUseId);
    const outcome: ToolOutcome =
      deniedReason !== undefined || isPermissionRejection(message, block.toolUseId)
        ? "denied"
        : block.isError
          ? "error"
          : "ok";
    const detail = outcome === "ok" ? "" : (deniedReason ?? firstLine(resultText(block.content)));
    this.finishTool(block.toolUseId, tool, outcome, detail);
    this.screen.spinner("waiting for the model");
  }

  private finishTool(id: string, tool: ToolLine, outcome: ToolOutcome, detail: string): void {
    tool.outcome = outcome;
    this.tools.set(id, tool);
    this.endText();
    const line = this.toolLine(tool, outcome, detail);
    // Off a terminal (or when the line scrolled away): a second line with the outcome.
    const { style } = this.screen;
    const mark = outcomeMark(outcome, style);
    const text = `${tool.nested ? "  " : ""}  ${mark} ${tool.name} ${outcomeWord(outcome, style)}${detail ? style.dim(`: ${detail}`) : ""}`;
    const fallback = this.screen.live ? fitWidth(text, this.screen.columns - 1) : text;
    if (tool.handle) this.screen.rewriteOr(tool.handle, line, fallback);
    else this.screen.line(fallback);
  }

  /** One row: `→ Bash  touch hello.txt` while pending, `✓ Bash  touch hello.txt` once done. */
  private toolLine(tool: ToolLine, outcome: ToolOutcome | undefined, detail: string): string {
    const { style } = this.screen;
    const indent = tool.nested ? "  " : "";
    const mark = outcome === undefined ? style.cyan("→") : outcomeMark(outcome, style);
    const suffix =
      outcome === undefined || outcome === "ok"
        ? ""
        : ` — ${outcomeWord(outcome, style)}${detail ? style.dim(`: ${detail}`) : ""}`;
    const head = `${indent}${mark} ${style.bold(tool.name)}`;
    const text = `${head}${tool.summary ? ` ${tool.summary}` : ""}${suffix}`;
    return this.screen.live ? fitWidth(text, this.screen.columns - 1) : text;
  }

  private endText(): void {
    if (this.inText) this.screen.ensureLineStart();
    this.inText = false;
  }
}

function outcomeMark(outcome: ToolOutcome, style: Screen["style"]): string {
  switch (outcome) {
    case "ok":
      return style.green("✓");
    case "error":
      return style.red("✗");
    case "denied":
      return style.yellow("⊘");
    case "cancelled":
      return style.dim("⏹");
  }
}

function outcomeWord(outcome: ToolOutcome, style: Screen["style"]): string {
  switch (outcome) {
    case "ok":
      return style.green("ok");
    case "error":
      return style.red("error");
    case "denied":
      return style.yellow("denied");
    case "cancelled":
      return style.dim("cancelled");
  }
}

/** Truncates styled text to `width` visible characters (dropping styles when it has to cut). */
function fitWidth(text: string, width: number): string {
  const plain = stripAnsi(text);
  if ([...plain].length <= width) return text;
  return truncate(plain, width);
}

/** `mcp__demo__get_weather` → `demo:get_weather`; other names unchanged. */
export function displayToolName(name: string): string {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  return match ? `${match[1]}:${match[2]}` : name;
}

/** A compact one-line view of a tool's input: the command, path or pattern; else compact JSON. */
export function summarizeInput(name: string, input: Record<string, unknown>): string {
  const pick = (...keys: string[]) => {
    for (const key of keys) {
      const value = input[key];
      if (typeof value === "string" && value !== "") return value;
    }
    return undefined;
  };
  const preferred =
    name === "Bash" || name === "shell" || name === "exec_command"
      ? pick("command", "cmd")
      : pick(
          "command",
          "cmd",
          "file_path",
          "path",
          "notebook_path",
          "pattern",
          "url",
          "query",
          "description",
        );
  // ACP agents that send no input (Gemini CLI) are described by the title they show: the command.
  const text = preferred ?? pick("title") ?? (Object.keys(input).length > 0 ? JSON.stringify(input) : "");
  return oneLine(text, 200);
}

function oneLine(text: string, max: number): string {
  return truncate(text.replace(/\s*\n\s*/g, " ⏎ ").trim(), max);
}

function firstLine(text: string): string {
  return oneLine(text.replace(/^Error:\s*/, "").split("\n")[0] ?? "", 160);
}

/** Text of a tool result's content (string or content blocks). */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
      )
      .join(" ");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

/** Claude Code marks tool results refused by a permission rule or the user in `tool_result_meta`. */
function isPermissionRejection(message: UserMessage, toolUseId: string): boolean {
  const meta = message.raw.tool_result_meta;
  if (!Array.isArray(meta)) return false;
  return meta.some((entry) => {
    if (typeof entry !== "object" || entry === null) return false;
    const e = entry as { id?: unknown; permission_decision?: { decision?: unknown } };
    return e.id === toolUseId && e.permission_decision?.decision === "reject";
  });
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "?";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** `arg` as one shell word: unchanged when it is plain, else single-quoted. */
function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
