/**
 * A spare Claude Code process: started and through its handshake in a parking directory before
 * the session it will serve is known — not even its folder — then bound to one with a claim
 * (`--await-claim`, the `claim_session` request). Where {@link startup} needs the session's
 * options up front, a spare needs only what is fixed per process (executable, environment,
 * settings sources, MCP servers, hooks, `canUseTool`, …): one spare serves any folder.
 */
import { rmSync } from "node:fs";
import type { SessionSource } from "../api/engine.js";
import type { Session } from "../backends/backend.js";
import { type AgentSdkClient, clientOn } from "../client.js";
import {
  AbortError,
  ControlRequestError,
  ProcessError,
  UnsupportedFeatureError,
  WarmStartError,
} from "../errors.js";
import type { AgentOptions } from "../options.js";
import { describeExit } from "../process/child.js";
import { atHostExit } from "../process/group-registry.js";
import type { Prompt } from "../prompt.js";
import { type Query, queryOn } from "../query.js";
import { checkSignalOption, combineSignals } from "../signals/abort.js";
import {
  type ClaimInfo,
  type ClaimOptions,
  checkClaimOptions,
  claimFields,
  claimInfo,
  claimQueryOptions,
  reasonText,
} from "./claim.js";
import { newParkingDir } from "./parking.js";
import {
  DEFAULT_WARM_IDLE_TIMEOUT_MS,
  startup,
  type WarmSession,
  type WarmSessionState,
} from "./warm-session.js";

/** Arguments of {@link prewarm}. */
export interface PrewarmParams {
  /**
   * What is fixed for the life of the process (Claude only): `cliPath`, `env`, `settingSources`,
   * `settings`, `systemPrompt`, `mcpServers`, `hooks`, `canUseTool`, tools, plugins, …. `cwd` is
   * where the spare is parked (never the session's folder); by default a new private directory
   * under the CLI's configuration home (`<CLAUDE_CONFIG_DIR or ~/.claude>/spares/`), removed once
   * the spare is claimed or gone.
   */
  options?: AgentOptions;
  /** Bound on start-up and handshake, in ms (default 60 000). The process is ended when it passes. */
  timeoutMs?: number;
  /** How long the spare waits for a claim before it closes, in ms (default 10 minutes; `Infinity`: until closed). */
  idleTimeoutMs?: number;
}

/**
 * A parked Claude Code process waiting for {@link claim}. Use it once, or {@link close} it; `await
 * using` closes an unclaimed one, and it never keeps the host alive or outlives it.
 */
export class SpareSession implements AsyncDisposable {
  /**
   * Settles once the CLI has answered the claim and the `model` / `maxThinkingTokens` sent with it.
   * Rejects with {@link WarmStartError}: `claim-refused` (the CLI's reason in the message, e.g.
   * `cwd_not_found`, `permission_mode_not_claimable`, `env_key_not_claimable`; the prompt did not
   * run: it gets an error result and the process exits), `option-not-applied` (only `model` or
   * `maxThinkingTokens` was refused: the prompt runs without it), `closed` (before a claim: by
   * `close()`, or the query or client it was handed to was closed, aborted or failed before it
   * started — the spare is then closed at once) or `exited` (before a claim). A spare that is never
   * claimed leaves it pending until it is closed or gone.
   */
  readonly claimed: Promise<ClaimInfo>;
  /** Settles once the process has exited, claimed or not (a parked spare that died should be replaced). */
  readonly exited: Promise<void>;
  private resolveClaimed!: (info: ClaimInfo) => void;
  private rejectClaimed!: (error: WarmStartError) => void;
  private claimSent = false;

  /** @internal Use {@link prewarm}. */
  constructor(
    private readonly warm: WarmSession,
    /** The directory the process is parked in. */
    readonly parkingDir: string,
    private readonly removeParkingDir: () => void,
  ) {
    this.claimed = new Promise<ClaimInfo>((resolve, reject) => {
      this.resolveClaimed = resolve;
      this.rejectClaimed = reject;
    });
    // Nobody may be listening: an unclaimed spare that is closed must not become an unhandled rejection.
    this.claimed.catch(() => undefined);
    this.exited = warm.whenClosed();
    void this.exited.then(() => {
      this.removeParkingDir();
      if (!this.claimSent)
        this.rejectClaimed(
          warm.discarded
            ? discardedError()
            : new WarmStartError(
                "exited",
                "spare_exited: the spare process ended before it was claimed (a crash, its idle timeout, or the host)",
              ),
        );
    });
  }

  /** `ready` until claimed, then `used`; `closed` after `close()`, its idle timeout, or its exit. */
  get state(): WarmSessionState {
    return this.warm.state;
  }

  /** The pid of the parked process. */
  get pid(): number | undefined {
    return this.warm.pid;
  }

  /**
   * Binds the spare to a session in `options.cwd` and runs `prompt` there: the claim goes to the
   * process when the query starts (its first `next()`), the prompt right behind it, without a round
   * trip in between. The returned query carries {@link claimed} too, which tells how the claim
   * went (a refused claim ends the query with an error result). Usable once.
   *
   * @throws InvalidOptionsError for malformed claim options (nothing is sent; the spare can still be
   *   claimed), {@link WarmStartError} when the spare was already claimed, closed, or has exited.
   */
  claim(prompt: Prompt, options: ClaimOptions): ClaimedQuery {
    const source = this.claimSource(options);
    const query = queryOn(source, {
      prompt,
      options: { ...this.warm.options, ...claimQueryOptions(options) },
    });
    return Object.assign(query, { claimed: this.claimed });
  }

  /**
   * An {@link AgentSdkClient} on the spare, for a conversation in `options.cwd`: `connect()` sends
   * the claim (the client's turns follow it). Same checks and rules as {@link claim}; the client
   * carries {@link claimed}. Usable once.
   */
  client(options: ClaimOptions): ClaimedClient {
    const source = this.claimSource(options);
    const client = clientOn(source, { ...this.warm.options, ...claimQueryOptions(options) });
    return Object.assign(client, { claimed: this.claimed });
  }

  /**
   * @internal Reserves the spare and returns what hands it over, claimed, when the query or client
   * it is for starts (see {@link claim}, {@link client}, {@link claimOnNewSpare}).
   */
  claimSource(options: ClaimOptions): SessionSource {
    const fields = claimFields(options);
    return this.warm.reserve(
      claimQueryOptions(options),
      (session) => this.sendClaim(session, fields, options),
      () => this.rejectClaimed(discardedError()),
    );
  }

  /** Ends an unclaimed spare (its `claimed` rejects with `closed`); nothing once claimed. */
  async close(): Promise<void> {
    if (!this.claimSent)
      this.rejectClaimed(
        new WarmStartError("closed", "spare_closed: the spare was closed before it was claimed"),
      );
    await this.warm.close();
    if (!this.claimSent) this.removeParkingDir();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private sendClaim(session: Session, fields: Record<string, unknown>, options: ClaimOptions): void {
    if (session.claimSession === undefined)
      throw new UnsupportedFeatureError("claiming a spare", "this session");
    this.claimSent = true;
    const answer = session.claimSession(fields);
    // Behind the claim, ahead of the prompt: in force before the prompt is read.
    const follow: [string, Promise<void>][] = [];
    const { model, maxThinkingTokens } = options;
    if (model !== undefined) follow.push(["model", sessionCall(session.setModel?.bind(session), model)]);
    if (maxThinkingTokens !== undefined)
      follow.push([
        "maxThinkingTokens",
        sessionCall(session.setMaxThinkingTokens?.bind(session), maxThinkingTokens),
      ]);
    for (const [, sent] of follow) sent.catch(() => undefined);
    answer.then(
      async (raw) => {
        this.removeParkingDir();
        const info = claimInfo(raw, String(fields.cwd));
        const settled = await Promise.allSettled(follow.map(([, sent]) => sent));
        const refused = settled.flatMap((outcome, i) =>
          outcome.status === "rejected" ? [`${follow[i]?.[0]}: ${reasonText(outcome.reason)}`] : [],
        );
        if (refused.length === 0) this.resolveClaimed(info);
        else
          this.rejectClaimed(
            new WarmStartError(
              "option-not-applied",
              `option_not_applied: ${refused.join("; ")} — the prompt was sent and session ${info.sessionId} runs without these options`,
            ),
          );
      },
      (error: unknown) => {
        this.removeParkingDir();
        this.rejectClaimed(claimFailure(error, session));
      },
    );
  }
}

/** `method(arg)`, or a rejection when the session lacks the method (a Claude session has them all). */
function sessionCall<T>(method: ((arg: T) => Promise<void>) | undefined, arg: T): Promise<void> {
  return method ? method(arg) : Promise.reject(new UnsupportedFeatureError("a claim option", "this session"));
}

/**
 * Why a claim got no answer. Only the CLI's own answer (a `ControlRequestError`) is a refusal; a
 * process that died while the claim waited (killed, crashed: the session's `ProcessError`, with its
 * exit code or signal) is `exited`; a claim whose query was closed or aborted meanwhile is `closed`.
 */
function claimFailure(error: unknown, session: Session): WarmStartError {
  if (error instanceof ControlRequestError)
    return new WarmStartError(
      "claim-refused",
      `${reasonText(error)} (the spare refused the claim; the prompt did not run)`,
    );
  if (error instanceof AbortError)
    return new WarmStartError(
      "closed",
      `spare_closed: the claim's query was closed or aborted before the spare answered (${reasonText(error)}); the prompt did not run`,
      [],
      { cause: error },
    );
  if (error instanceof ProcessError || session.isAlive?.() === false) {
    const how =
      error instanceof ProcessError
        ? describeExit({ code: error.exitCode, signal: error.signal })
        : "its process is gone";
    return new WarmStartError(
      "exited",
      `spare_exited: the spare process ended during the claim (${how}); the prompt did not run`,
      [],
      { cause: error },
    );
  }
  return new WarmStartError(
    "claim-refused",
    `${reasonText(error)} (the claim failed; the prompt did not run)`,
    [],
    { cause: error },
  );
}

/** `claimed`'s rejection when the query or client a spare was reserved for ended without claiming it. */
function discardedError(): WarmStartError {
  return new WarmStartError(
    "closed",
    "spare_closed: the query or client the spare was handed to ended before it claimed it (closed, aborted, or failed to start); the spare was closed",
  );
}

/** A query on a claimed spare, with the spare's {@link SpareSession.claimed}. */
export type ClaimedQuery = Query & {
  /** See {@link SpareSession.claimed}. */
  readonly claimed: Promise<ClaimInfo>;
};

/** A client on a claimed spare, with the spare's {@link SpareSession.claimed}. */
export type ClaimedClient = AgentSdkClient & {
  /** See {@link SpareSession.claimed}. */
  readonly claimed: Promise<ClaimInfo>;
};

/**
 * A claim with no spare ready: a query that starts a spare with `params` when it starts, and claims
 * it. Costs a cold start (plus the claim's round trip) but behaves exactly as a claim on a ready
 * spare; `claimed` also rejects with the start's own error when the spare cannot start.
 *
 * @throws InvalidOptionsError for malformed claim options, before anything starts.
 */
export function claimOnNewSpare(params: PrewarmParams, prompt: Prompt, options: ClaimOptions): ClaimedQuery {
  const { source, claimed } = newSpareSource(params, options);
  const query = queryOn(source, { prompt, options: { ...params.options, ...claimQueryOptions(options) } });
  return Object.assign(query, { claimed });
}

/** As {@link claimOnNewSpare}, for a client: its `connect()` starts the spare and claims it. */
export function clientOnNewSpare(params: PrewarmParams, options: ClaimOptions): ClaimedClient {
  const { source, claimed } = newSpareSource(params, options);
  const client = clientOn(source, { ...params.options, ...claimQueryOptions(options) });
  return Object.assign(client, { claimed });
}

/** What starts a spare for one query or client and hands it over claimed; and how the claim went. */
function newSpareSource(
  params: PrewarmParams,
  options: ClaimOptions,
): { source: SessionSource; claimed: Promise<ClaimInfo> } {
  checkClaimOptions(options);
  let settle!: { resolve: (info: ClaimInfo) => void; reject: (error: unknown) => void };
  const claimed = new Promise<ClaimInfo>((resolve, reject) => {
    settle = { resolve, reject };
  });
  claimed.catch(() => undefined);
  let called = false;
  // Nothing has started yet: a query or client that ends first only settles `claimed`.
  const discard = () => {
    options.signal?.removeEventListener("abort", discard);
    if (!called) settle.reject(discardedError());
  };
  if (options.signal?.aborted) discard();
  else options.signal?.addEventListener("abort", discard, { once: true });
  const source: SessionSource = async (sourceParams) => {
    called = true;
    options.signal?.removeEventListener("abort", discard);
    let spare: SpareSession;
    try {
      // The taker's own signal: closing it while the spare starts ends the start.
      spare = await prewarm({
        ...params,
        options: { ...params.options, signal: combineSignals(params.options?.signal, sourceParams.signal) },
      });
    } catch (error) {
      settle.reject(error);
      throw error;
    }
    spare.claimed.then(settle.resolve, settle.reject);
    return spare.claimSource(options)(sourceParams);
  };
  source.discard = discard;
  return { source, claimed };
}

/**
 * Starts a spare Claude Code process (`--await-claim`) parked in a private directory and finishes
 * its handshake before anything about the session is known; {@link SpareSession.claim} later binds
 * it to a folder and runs the prompt. Invalid options fail here, before anything is spawned.
 *
 * @throws UnsupportedFeatureError for a backend other than Claude.
 * @example
 * await using spare = await prewarm({ options: { model: "claude-sonnet-4-5" } });
 * // … later, when a user opens a repository:
 * for await (const message of spare.claim("Fix the failing test", { cwd: repo })) console.log(message.type);
 */
export async function prewarm(params: PrewarmParams = {}): Promise<SpareSession> {
  const options = params.options ?? {};
  const backend = options.backend ?? "claude";
  if (backend !== "claude") throw new UnsupportedFeatureError("prewarm (a spare claimed later)", backend);
  checkSignalOption(options.signal, "options.signal");
  const parking = options.cwd === undefined ? newParkingDir(options) : undefined;
  const removeNow = () => {
    if (parking !== undefined) rmSync(parking, { recursive: true, force: true });
  };
  // A host that exits with the spare parked still removes it (after its process is killed).
  const forgetAtExit = parking !== undefined ? atHostExit(removeNow) : () => undefined;
  const removeParkingDir = once(() => {
    forgetAtExit();
    removeNow();
  });
  try {
    const warm = await startup({
      options: {
        ...options,
        ...(parking !== undefined ? { cwd: parking } : {}),
        extraArgs: { ...options.extraArgs, "await-claim": null },
      },
      idleTimeoutMs: params.idleTimeoutMs ?? DEFAULT_WARM_IDLE_TIMEOUT_MS,
      ...(params.timeoutMs !== undefined ? { timeoutMs: params.timeoutMs } : {}),
    });
    return new SpareSession(warm, parking ?? (options.cwd as string), removeParkingDir);
  } catch (error) {
    removeParkingDir();
    throw error;
  }
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    try {
      action();
    } catch {
      // A parking directory that cannot be removed is left behind; nothing depends on it.
    }
  };
}
