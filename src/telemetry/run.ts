/**
 * The spans and metrics of one query or client, built from the unified message stream as it is
 * read: an `invoke_agent` span per turn, an `execute_tool` span per tool call (child of its turn,
 * or of the subagent call it ran under), and the GenAI client metrics. Every method is safe to
 * call with anything: telemetry never throws into the run it watches.
 */
import type { Attributes, Context, Histogram, Meter, Span, Tracer } from "@opentelemetry/api";
import type { ContentBlock, Message, ResultMessage, ToolResultBlock, ToolUseBlock } from "../messages.js";
import type { Prompt } from "../prompt.js";
import { SDK_VERSION } from "../version.js";
import { trySerialise } from "../wire/safe-json.js";
import type { OtelApi } from "./load.js";

/** The instrumentation scope name of every span and metric. */
export const INSTRUMENTATION_NAME = "code-agent-sdk";

/** Token counts and durations: the bucket boundaries the GenAI metric conventions give. */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** Longest content attribute recorded (characters); longer values are cut. */
const MAX_CONTENT_CHARS = 64 * 1024;

/** What a run is, for its attributes. */
export interface RunDescription {
  /** `gen_ai.provider.name`. */
  provider: string;
  /** `gen_ai.agent.name`. */
  agentName: string;
  /** The backend (`code_agent.backend`). */
  backend: string;
  /** `gen_ai.request.model`, when the options name one. */
  requestModel?: string | undefined;
  /** The system prompt, recorded only with content. */
  systemInstructions?: string | undefined;
  recordContent: boolean;
}

interface Turn {
  span: Span;
  context: Context;
  start: number;
  responseModel?: string;
  errorKind?: string;
}

interface ToolCall {
  span: Span;
  start: number;
  name: string;
  turn: Turn;
  /** The `canUseTool` decision, once made. */
  decision?: string | undefined;
}

/** Metric instruments of a run. */
interface Instruments {
  duration: Histogram;
  tokens: Histogram;
  cost: Histogram;
}

/**
 * Records one run. `parent` is the context the run's turn spans are children of (the caller's
 * active span, when it has one).
 */
export class RunTelemetry {
  private readonly turns: Turn[] = [];
  private readonly tools = new Map<string, ToolCall>();
  /** Permission decisions by tool call id, until that call's span takes them. */
  private readonly decisions = new Map<string, string>();
  /** Messages already observed: the client's readers each receive the same objects. */
  private readonly seen = new WeakSet<object>();
  private conversationId: string | undefined;
  private ended = false;
  private instruments: Instruments | undefined;

  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    meter: Meter | undefined,
    private readonly parent: Context,
    private readonly run: RunDescription,
  ) {
    this.guard(() => {
      this.instruments = meter && {
        duration: meter.createHistogram("gen_ai.client.operation.duration", {
          description: "GenAI operation duration (agent turns and tool calls)",
          unit: "s",
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        }),
        tokens: meter.createHistogram("gen_ai.client.token.usage", {
          description: "Number of input and output tokens used",
          unit: "{token}",
          advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
        }),
        cost: meter.createHistogram("code_agent.turn.cost", {
          description: "Cost of an agent turn, as the CLI reports it",
          unit: "USD",
        }),
      };
    });
  }

  /**
   * The span context the CLI's `TRACEPARENT` carries: the first turn's span when `ofTurn` (a
   * process that lives for that one turn), else the run's parent (a process serving many turns,
   * whose own spans of every turn then sit beside ours under that parent).
   */
  processSpanContext(ofTurn: boolean): ReturnType<Span["spanContext"]> | undefined {
    let context: ReturnType<Span["spanContext"]> | undefined;
    this.guard(() => {
      context = this.api.trace.getSpanContext((ofTurn ? this.turns[0]?.context : undefined) ?? this.parent);
    });
    return context;
  }

  /** A user turn starts (its prompt is sent). */
  beginTurn(prompt?: Prompt): void {
    if (this.ended) return;
    this.guard(() => this.openTurn(prompt));
  }

  /** Records a permission decision for a tool call (from `canUseTool`). */
  decision(toolUseId: string | undefined, behavior: string): void {
    if (this.ended || typeof toolUseId !== "string") return;
    this.guard(() => {
      const call = this.tools.get(toolUseId);
      if (call) {
        call.decision = behavior;
        call.span.setAttribute("code_agent.tool.decision", behavior);
      } else if (this.decisions.size < 1024) this.decisions.set(toolUseId, behavior);
    });
  }

  /** One message of the stream, as it is read. Each message object counts once. */
  observe(message: Message): void {
    if (this.ended || typeof message !== "object" || message === null || this.seen.has(message)) return;
    this.seen.add(message);
    this.guard(() => this.handle(message));
  }

  /**
   * The run is over: what is still open ends, with `error` (a failure of the run) as its status.
   * Later calls do nothing.
   */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.guard(() => {
      const errorType = error === undefined ? undefined : errorTypeOf(error);
      for (const call of this.tools.values())
        this.finishTool(
          call,
          errorType ?? "incomplete",
          error ?? "the run ended before the tool call's result",
        );
      this.tools.clear();
      for (const turn of this.turns.splice(0)) {
        if (error !== undefined) {
          turn.span.recordException(exceptionOf(error));
          this.fail(turn.span, errorType ?? "_OTHER", error);
        } else turn.span.setAttribute("code_agent.turn.completed", false);
        this.recordDuration(turn, errorType);
        turn.span.end();
      }
      this.decisions.clear();
    });
  }

  private openTurn(prompt?: Prompt): Turn {
    const attributes: Attributes = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": this.run.provider,
      "gen_ai.agent.name": this.run.agentName,
      "code_agent.backend": this.run.backend,
    };
    if (this.run.requestModel !== undefined) attributes["gen_ai.request.model"] = this.run.requestModel;
    if (this.conversationId !== undefined) attributes["gen_ai.conversation.id"] = this.conversationId;
    if (this.run.recordContent) {
      const input = promptMessages(prompt);
      if (input !== undefined) attributes["gen_ai.input.messages"] = input;
      if (this.run.systemInstructions !== undefined)
        attributes["gen_ai.system_instructions"] = content(
          JSON.stringify([{ type: "text", content: this.run.systemInstructions }]),
        );
    }
    const span = this.tracer.startSpan(
      `invoke_agent ${this.run.agentName}`,
      { kind: this.api.SpanKind.CLIENT, attributes },
      this.parent,
    );
    const turn: Turn = { span, context: this.api.trace.setSpan(this.parent, span), start: performance.now() };
    this.turns.push(turn);
    return turn;
  }

  private handle(message: Message): void {
    if (message.type === "system") {
      if (message.subtype === "init" && typeof message.sessionId === "string")
        this.setConversation(message.sessionId);
      return;
    }
    if (message.type !== "assistant" && message.type !== "user" && message.type !== "result") return;
    // Output with no turn open: a turn the CLI started itself (a streamed prompt's, a background
    // task's follow-up).
    const turn = this.turns[0] ?? this.openTurn();
    if (typeof message.sessionId === "string" && message.sessionId !== "")
      this.setConversation(message.sessionId);
    if (message.type === "result") {
      this.finishTurn(turn, message);
      return;
    }
    if (message.type === "assistant") {
      // (An ACP agent reports no model: the backend puts the agent's name there.)
      const model = message.model;
      if (
        typeof model === "string" &&
        model !== "" &&
        model !== this.run.agentName &&
        message.parentToolUseId === null
      )
        turn.responseModel = model;
      if (message.error !== undefined) turn.errorKind = String(message.error);
    }
    if (typeof message.content === "string") return;
    for (const block of message.content as ContentBlock[]) {
      if (block.type === "tool_use") this.startTool(turn, block, message.parentToolUseId);
      else if (block.type === "tool_result") this.endTool(block);
    }
  }

  private setConversation(id: string): void {
    if (this.conversationId === id) return;
    this.conversationId = id;
    for (const turn of this.turns) turn.span.setAttribute("gen_ai.conversation.id", id);
  }

  private startTool(turn: Turn, block: ToolUseBlock, parentToolUseId: string | null): void {
    if (typeof block.id !== "string" || this.tools.has(block.id)) return;
    const parentCall = parentToolUseId === null ? undefined : this.tools.get(parentToolUseId);
    const parent = parentCall ? this.api.trace.setSpan(turn.context, parentCall.span) : turn.context;
    const attributes: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.provider.name": this.run.provider,
      "gen_ai.tool.name": String(block.name),
      "gen_ai.tool.call.id": block.id,
      "gen_ai.tool.type": String(block.name).startsWith("mcp__") ? "extension" : "function",
    };
    if (this.conversationId !== undefined) attributes["gen_ai.conversation.id"] = this.conversationId;
    if (this.run.recordContent) attributes["gen_ai.tool.call.arguments"] = content(serialised(block.input));
    const decision = this.decisions.get(block.id);
    if (decision !== undefined) {
      attributes["code_agent.tool.decision"] = decision;
      this.decisions.delete(block.id);
    }
    const span = this.tracer.startSpan(
      `execute_tool ${String(block.name)}`,
      { kind: this.api.SpanKind.INTERNAL, attributes },
      parent,
    );
    this.tools.set(block.id, { span, start: performance.now(), name: String(block.name), turn, decision });
  }

  private endTool(block: ToolResultBlock): void {
    const call = this.tools.get(block.toolUseId);
    if (!call) return;
    this.tools.delete(block.toolUseId);
    if (typeof block.exitCode === "number")
      call.span.setAttribute("code_agent.tool.exit_code", block.exitCode);
    if (this.run.recordContent)
      call.span.setAttribute(
        "gen_ai.tool.call.result",
        content(typeof block.content === "string" ? block.content : serialised(block.content)),
      );
    if (block.isError) this.finishTool(call, "tool_error", resultText(block.content));
    else this.finishTool(call);
  }

  private finishTool(call: ToolCall, failure?: string, error?: unknown): void {
    // A call the policy refused failed for that reason, whatever the CLI reported after.
    const errorType = failure !== undefined && call.decision === "deny" ? "permission_denied" : failure;
    if (errorType !== undefined) this.fail(call.span, errorType, error);
    const attributes: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.provider.name": this.run.provider,
      "gen_ai.tool.name": call.name,
    };
    if (errorType !== undefined) attributes["error.type"] = errorType;
    this.instruments?.duration.record((performance.now() - call.start) / 1000, attributes);
    call.span.end();
  }

  private finishTurn(turn: Turn, result: ResultMessage): void {
    this.turns.shift();
    // Calls without a result by the end of their turn (interrupted, denied without one) end with it.
    for (const [id, call] of this.tools)
      if (call.turn === turn) {
        this.tools.delete(id);
        this.finishTool(call, "incomplete", "the turn ended before the tool call's result");
      }
    const span = turn.span;
    const model = turn.responseModel;
    if (model !== undefined) span.setAttribute("gen_ai.response.model", model);
    const usage = result.tokenUsage;
    if (usage?.inputTokens != null) span.setAttribute("gen_ai.usage.input_tokens", usage.inputTokens);
    if (usage?.outputTokens != null) span.setAttribute("gen_ai.usage.output_tokens", usage.outputTokens);
    if (usage?.cacheReadInputTokens != null)
      span.setAttribute("gen_ai.usage.cache_read.input_tokens", usage.cacheReadInputTokens);
    if (usage?.cacheCreationInputTokens != null)
      span.setAttribute("gen_ai.usage.cache_creation.input_tokens", usage.cacheCreationInputTokens);
    if (typeof result.stopReason === "string")
      span.setAttribute("gen_ai.response.finish_reasons", [result.stopReason]);
    if (typeof result.numTurns === "number")
      span.setAttribute("code_agent.turn.model_calls", result.numTurns);
    if (typeof result.totalCostUsd === "number")
      span.setAttribute("code_agent.turn.cost_usd", result.totalCostUsd);
    span.setAttribute("code_agent.result.subtype", String(result.subtype));
    if (this.run.recordContent && typeof result.result === "string" && !result.isError)
      span.setAttribute(
        "gen_ai.output.messages",
        content(
          JSON.stringify([
            {
              role: "assistant",
              parts: [{ type: "text", content: result.result }],
              finish_reason: typeof result.stopReason === "string" ? result.stopReason : "stop",
            },
          ]),
        ),
      );
    let errorType: string | undefined;
    if (result.isError) {
      // The SDK's classification of the failure (the same on every backend) when it made one.
      errorType =
        (typeof result.errorKind === "string" ? result.errorKind : undefined) ??
        turn.errorKind ??
        (result.subtype !== "success" ? String(result.subtype) : "error_result");
      this.fail(span, errorType, result.errors?.join("; ") || result.result || errorType);
    }
    this.recordDuration(turn, errorType);
    this.recordTokens(turn, result);
    span.end();
  }

  private metricAttributes(turn: Turn): Attributes {
    const attributes: Attributes = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": this.run.provider,
      "gen_ai.agent.name": this.run.agentName,
    };
    if (this.run.requestModel !== undefined) attributes["gen_ai.request.model"] = this.run.requestModel;
    if (turn.responseModel !== undefined) attributes["gen_ai.response.model"] = turn.responseModel;
    return attributes;
  }

  private recordDuration(turn: Turn, errorType: string | undefined): void {
    if (!this.instruments) return;
    const attributes = this.metricAttributes(turn);
    if (errorType !== undefined) attributes["error.type"] = errorType;
    this.instruments.duration.record((performance.now() - turn.start) / 1000, attributes);
  }

  private recordTokens(turn: Turn, result: ResultMessage): void {
    if (!this.instruments) return;
    const attributes = this.metricAttributes(turn);
    const usage = result.tokenUsage;
    if (usage?.inputTokens != null)
      this.instruments.tokens.record(usage.inputTokens, { ...attributes, "gen_ai.token.type": "input" });
    if (usage?.outputTokens != null)
      this.instruments.tokens.record(usage.outputTokens, { ...attributes, "gen_ai.token.type": "output" });
    if (typeof result.totalCostUsd === "number" && Number.isFinite(result.totalCostUsd))
      this.instruments.cost.record(result.totalCostUsd, attributes);
  }

  /**
   * Runs `action`; a failure of the telemetry itself (a tracer, processor or exporter that
   * throws) goes to OpenTelemetry's diagnostic logger (`diag.error`), never into the run it
   * observes: a broken provider loses its own data only.
   */
  private guard(action: () => void): void {
    try {
      action();
    } catch (error) {
      try {
        this.api.diag.error(
          `${INSTRUMENTATION_NAME} telemetry failed: ${describe(error) || errorTypeOf(error)}`,
        );
      } catch {
        // A diagnostic logger that throws has nowhere left to report to.
      }
    }
  }

  private fail(span: Span, errorType: string, error: unknown): void {
    span.setAttribute("error.type", errorType);
    span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: describe(error) });
  }
}

/** `error.type`: the typed error class's name (`ProcessError`, `AbortError`, …), else `_OTHER`. */
export function errorTypeOf(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.name === "string" && error.name !== "") return error.name;
  } catch {
    // A proxy whose traps throw.
  }
  return "_OTHER";
}

function exceptionOf(error: unknown): { name: string; message: string } {
  return { name: errorTypeOf(error), message: describe(error) };
}

function describe(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.message === "string") return error.message.slice(0, 2048);
    if (typeof error === "string") return error.slice(0, 2048);
  } catch {
    // fall through
  }
  return "";
}

function serialised(value: unknown): string {
  const result = trySerialise(value);
  return result.ok ? result.line : `(not serialisable: ${result.problem})`;
}

function content(text: string): string {
  return text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…` : text;
}

function resultText(value: unknown): string {
  return typeof value === "string" ? value : serialised(value);
}

/** `gen_ai.input.messages` of a string or content prompt; a streamed prompt has none here. */
function promptMessages(prompt: Prompt | undefined): string | undefined {
  if (prompt === undefined) return undefined;
  if (typeof prompt === "string")
    return content(JSON.stringify([{ role: "user", parts: [{ type: "text", content: prompt }] }]));
  if (!Array.isArray(prompt)) return undefined;
  const parts = prompt.map((block: unknown) => {
    const b = block as { type?: unknown; text?: unknown };
    return b.type === "text" && typeof b.text === "string"
      ? { type: "text", content: b.text }
      : { type: String(b.type ?? "unknown") };
  });
  return content(JSON.stringify([{ role: "user", parts }]));
}

export { SDK_VERSION as INSTRUMENTATION_VERSION };
