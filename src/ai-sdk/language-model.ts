/**
 * The AI SDK language model (specification v3, which `ai` 6 uses and `ai` 7 still accepts) over
 * one agent turn: `doStream` runs `query()` and maps its messages to stream parts as the caller
 * reads them; `doGenerate` collects the same parts into content.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { ControlRequestError, UnsupportedFeatureError } from "../errors.js";
import type { Message } from "../messages.js";
import type { CanUseTool } from "../permissions.js";
import { type Query, query, setQueryKeepAlive } from "../query.js";
import { ApprovalBridge, type ParkableRun, ParkedRuns } from "./approvals.js";
import type { ParsedModelId } from "./model-id.js";
import { PartMapper } from "./parts.js";
import { type ConvertedPrompt, convertPrompt } from "./prompt.js";
import { type CodeAgentSettings, prepareCall, resumeTest } from "./settings.js";
import { callerToolName } from "./tools.js";

/** A coding agent as an AI SDK language model. Made by `createCodeAgent()(modelId, settings)`. */
export class CodeAgentLanguageModel implements LanguageModelV3 {
  /** The AI SDK provider specification this model implements. */
  readonly specificationVersion = "v3" as const;
  /** `code-agent.<backend>`. */
  readonly provider: string;
  /** The model id it was created with, e.g. `"claude/opus"`. */
  readonly modelId: string;
  /**
   * Image URLs are passed to the agent as they are (the CLI or its API fetches them); the AI SDK
   * downloads nothing for this provider.
   */
  readonly supportedUrls: Record<string, RegExp[]> = { "image/*": [/^https?:\/\//i] };

  constructor(
    modelId: string,
    private readonly id: ParsedModelId,
    private readonly settings: CodeAgentSettings,
    /** Turns waiting for an approval (shared by the models of one provider). */
    private readonly parked: ParkedRuns<Turn> = new ParkedRuns(),
  ) {
    this.modelId = modelId;
    this.provider = `code-agent.${id.backend}`;
  }

  /**
   * Runs one agent turn and streams it. The CLI starts when the stream is first read; cancelling the
   * stream, or the call's `abortSignal`, ends the CLI's process group. With `toolApproval: "ai-sdk"`
   * a permission request ends the stream with a `tool-approval-request` while the turn waits, and a
   * call whose last message answers it streams the rest of that turn.
   */
  async doStream(call: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const parked = this.parked.take(call.prompt);
    if (parked) {
      const repeated = parked.toolCallIds.flatMap((id) => parked.run.mapper.repeatToolCall(id));
      return { stream: streamTurn(parked.run, call, [], this.parked, repeated) };
    }
    const converted = convertPrompt(call.prompt, {
      backend: this.id.backend,
      allowResume: resumeTest(this.settings, this.id.backend),
    });
    // A turn of this session still waiting for an answer the conversation skipped: end it first.
    if (converted.resume !== undefined) this.parked.expireSession(converted.resume);
    const abort = new AbortController();
    const bridge = this.settings.toolApproval === "ai-sdk" ? new ApprovalBridge() : undefined;
    const open = (conv: ConvertedPrompt) => {
      const prepared = prepareCall(this.id, this.settings, call, conv, abort.signal);
      if (bridge) (prepared.options as { canUseTool?: CanUseTool }).canUseTool = bridge.canUseTool;
      const sdkTools = this.settings.sdkTools;
      const mapper = new PartMapper({
        backend: this.id.backend,
        nativeJson: prepared.nativeJson,
        toolName: (name) => callerToolName(name, sdkTools),
      });
      // A warm process runs with its pool's options; only the abort signal is the call's own.
      const q =
        prepared.warmPool && !bridge
          ? prepared.warmPool.query(prepared.prompt, { signal: abort.signal })
          : query({ prompt: prepared.prompt, options: prepared.options });
      return { prepared, mapper, q };
    };
    const { prepared, mapper, q } = open(converted);
    const turn = new Turn(q, mapper, abort, bridge);
    if (converted.resume !== undefined && this.id.backend === "acp") {
      // An ACP agent without session/load refuses the resume before anything runs, and one that
      // cannot load this session answers session/load with an error: the history goes as a text
      // transcript to a new session instead.
      turn.fallback = () => {
        const replayed = open(
          convertPrompt(call.prompt, { backend: this.id.backend, allowResume: () => false }),
        );
        return {
          q: replayed.q,
          mapper: replayed.mapper,
          warnings: [
            ...replayed.prepared.warnings.filter(
              (w) => w.type !== "compatibility" || w.feature !== "conversation history",
            ),
            {
              type: "compatibility",
              feature: "conversation history",
              details:
                "the agent could not load the session (no session/load, or it failed): earlier turns were replayed to a new session as a text transcript",
            },
          ],
        };
      };
    }
    return {
      stream: streamTurn(turn, call, prepared.warnings, this.parked),
      request: { body: { prompt: prepared.prompt, resume: prepared.options.resume } },
    };
  }

  /** Runs one agent turn to its end. A failed turn throws its `AgentTurnError`. */
  async doGenerate(call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { stream, request } = await this.doStream(call);
    const content: LanguageModelV3Content[] = [];
    const texts = new Map<string, { type: "text" | "reasoning"; text: string }>();
    let warnings: LanguageModelV3GenerateResult["warnings"] = [];
    let finishReason: LanguageModelV3FinishReason = { unified: "other", raw: undefined };
    let usage: LanguageModelV3Usage | undefined;
    let providerMetadata: SharedV3ProviderMetadata | undefined;
    let response: LanguageModelV3GenerateResult["response"];
    let failure: { error: unknown } | undefined;
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value: part } = await reader.read();
        if (done) break;
        switch (part.type) {
          case "stream-start":
            warnings = part.warnings;
            break;
          case "response-metadata":
            response = { id: part.id, timestamp: part.timestamp, modelId: part.modelId };
            break;
          case "text-start":
          case "reasoning-start": {
            const entry = {
              type: part.type === "text-start" ? ("text" as const) : ("reasoning" as const),
              text: "",
              ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
            };
            texts.set(part.id, entry);
            content.push(entry);
            break;
          }
          case "text-delta":
          case "reasoning-delta": {
            const entry = texts.get(part.id);
            if (entry) entry.text += part.delta;
            break;
          }
          case "tool-call":
          case "tool-result":
          case "tool-approval-request":
          case "file":
          case "source":
            content.push(part);
            break;
          case "error":
            failure ??= { error: part.error };
            break;
          case "finish":
            finishReason = part.finishReason;
            usage = part.usage;
            providerMetadata = part.providerMetadata;
            break;
          default:
            break;
        }
      }
    } finally {
      reader.releaseLock();
    }
    if (failure) throw failure.error;
    return {
      content,
      finishReason,
      usage: usage ?? {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
      ...(providerMetadata ? { providerMetadata } : {}),
      ...(request ? { request } : {}),
      ...(response ? { response } : {}),
      warnings,
    };
  }
}

/** One agent turn, across the calls it spans (more than one when it waits for approvals). */
export class Turn implements ParkableRun {
  /** The `next()` in flight, kept while the turn is parked. */
  pending: Promise<IteratorResult<Message, void>> | undefined;
  /** What to run instead when the backend refuses to resume before anything ran (ACP without session/load). */
  fallback: (() => { q: Query; mapper: PartMapper; warnings: SharedV3Warning[] }) | undefined;

  constructor(
    public q: Query,
    public mapper: PartMapper,
    /** Ends the turn's CLI; each call's own `abortSignal` is linked to it while that call streams. */
    readonly abort: AbortController,
    readonly bridge: ApprovalBridge | undefined,
  ) {}

  get sessionId(): string | undefined {
    return this.mapper.session;
  }

  /** The next message (read once, even across a parked stretch). */
  next(): Promise<IteratorResult<Message, void>> {
    if (!this.pending) {
      this.pending = this.q.next();
      // A turn parked when its CLI fails must not leave an unhandled rejection: it is read later.
      this.pending.catch(() => undefined);
    }
    return this.pending;
  }

  setKeepAlive(keep: boolean): void {
    setQueryKeepAlive(this.q, keep);
  }

  end(reason: string): void {
    this.bridge?.denyAll(`The turn ended: ${reason}`);
    this.abort.abort(new Error(reason));
    this.q.close().catch(() => undefined);
  }
}

/** Streams `turn` for one call, until its end or until it waits for the caller's approval. */
function streamTurn(
  turn: Turn,
  call: LanguageModelV3CallOptions,
  warnings: SharedV3Warning[],
  parked: ParkedRuns<Turn>,
  /** Parts to send first (the answered tool calls, when the turn goes on after approvals). */
  first: LanguageModelV3StreamPart[] = [],
): ReadableStream<LanguageModelV3StreamPart> {
  const includeRaw = call.includeRawChunks === true;
  const callSignal = call.abortSignal;
  const onAbort = () => turn.abort.abort(callSignal?.reason);
  if (callSignal?.aborted) onAbort();
  else callSignal?.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  const done = () => {
    finished = true;
    callSignal?.removeEventListener("abort", onAbort);
  };
  let started = false;
  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      if (!started) {
        started = true;
        const fallback = turn.fallback;
        turn.fallback = undefined;
        if (fallback) {
          // The stream's warnings wait for the first message: a refused resume changes them.
          try {
            await turn.next();
          } catch (error) {
            // No session/load (refused before start), or a session/load the agent answered with an error.
            if (error instanceof UnsupportedFeatureError || error instanceof ControlRequestError) {
              turn.pending = undefined;
              await turn.q.close().catch(() => undefined);
              const replayed = fallback();
              turn.q = replayed.q;
              turn.mapper = replayed.mapper;
              warnings = replayed.warnings;
            }
          }
        }
        controller.enqueue({ type: "stream-start", warnings });
        for (const part of first) controller.enqueue(part);
      }
      const { mapper, bridge } = turn;
      try {
        // Read until this message gives at least one part, so each pull makes progress.
        for (;;) {
          const asked = bridge?.takeNew() ?? [];
          if (asked.length > 0) {
            // The turn waits for the caller: show the requests, end this call, park the turn.
            const out: LanguageModelV3StreamPart[] = [];
            for (const r of asked) {
              mapper.ensureToolCall(r.toolCallId, r.toolName, r.input, out);
              out.push({ type: "tool-approval-request", approvalId: r.approvalId, toolCallId: r.toolCallId });
            }
            out.push(...mapper.pause());
            for (const part of out) controller.enqueue(part);
            done();
            parked.park(turn);
            controller.close();
            return;
          }
          const next = bridge
            ? await Promise.race([turn.next(), bridge.whenRequested().then(() => undefined)])
            : await turn.next();
          if (next === undefined) continue;
          turn.pending = undefined;
          if (next.done) {
            done();
            for (const part of mapper.finish()) controller.enqueue(part);
            controller.close();
            return;
          }
          if (includeRaw) controller.enqueue({ type: "raw", rawValue: next.value.raw });
          const parts = mapper.map(next.value);
          for (const part of parts) controller.enqueue(part);
          if (parts.length > 0 || includeRaw) return;
        }
      } catch (error) {
        done();
        turn.pending = undefined;
        bridge?.denyAll("The turn failed");
        // Closing after a failure: the failure is what the caller needs to hear about.
        await turn.q.close().catch(() => undefined);
        if (turn.abort.signal.aborted) {
          // The AI SDK reports its own abort from the errored stream.
          controller.error(error);
          return;
        }
        // A failure (options the backend refuses, a CLI that cannot start or dies) is an error
        // part, as a provider reports an API failure, then the finish: streamText's onError and
        // the UI message stream show it; generateText throws it.
        controller.enqueue({ type: "error", error });
        for (const part of mapper.finish(true)) controller.enqueue(part);
        controller.close();
      }
    },
    async cancel() {
      if (finished) return;
      done();
      turn.bridge?.denyAll("The call was cancelled");
      turn.abort.abort();
      await turn.q.close();
    },
  });
}
