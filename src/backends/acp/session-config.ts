/**
 * The runtime controls an ACP agent offers for its session, read from its `session/new` (or
 * `session/load` / `session/resume`) answer and kept current from `config_option_update` /
 * `current_mode_update`: session config options (category `model` / `mode`), the older `modes`
 * (`session/set_mode`) and the unstable `models` (`session/set_model`). Turns `setModel(model)` and
 * `setPermissionMode(mode)` into the one request that does it, or a typed error saying what the
 * agent lacks. Pure: the session sends the request.
 */
import { InvalidOptionsError, UnsupportedFeatureError } from "../../errors.js";
import type { RawObject } from "../../messages.js";
import type { PermissionMode } from "../../permissions.js";
import { asObject, isObject } from "../../wire/read.js";

/** One choice of a select config option, a mode or a model: its id and display name. */
export interface AcpChoice {
  id: string;
  name: string;
}

/** A select config option as far as this client reads it. */
interface SelectOption {
  id: string;
  category: string | undefined;
  currentValue: string;
  choices: AcpChoice[];
}

/** The request that makes a change: method and params without `sessionId`. */
export interface AcpConfigRequest {
  method: "session/set_config_option" | "session/set_mode" | "session/set_model";
  params: RawObject;
}

/** What this session's agent offers, for `serverInfo().controls` and the `init` message. */
export interface AcpControlsReport {
  /** `setModel` works: how (`config_option` / `set_model`), or `false`. */
  setModel: "config_option" | "set_model" | false;
  /** `setPermissionMode` works: how (`config_option` / `set_mode`), or `false`. */
  setPermissionMode: "config_option" | "set_mode" | false;
  /** `close()` sends `session/close` first. */
  close: boolean;
  /** `resume` works: by `session/load` (history replayed) or `session/resume` (not replayed), or `false`. */
  resume: "load" | "resume" | false;
  /** The agent lists its sessions (`session/list`). */
  list: boolean;
  /** The agent forks sessions (`session/fork`, unstable; not driven by this client). */
  fork: boolean;
}

/**
 * Agent mode ids and names (lowercased, letters and digits only) that stand for each of our
 * permission modes, best first, as seen in the real agents' answers: Claude Code's own ids,
 * Gemini's `autoEdit` / `yolo`, Qwen's `auto-edit` / `yolo`, Copilot's `…#agent` / `…#plan` /
 * `…#autopilot`, Droid's `normal` / `auto-low` / `spec` / `auto-high`, opencode's `build`, Kilo's `code`,
 * Cline's `act` (changes, with permission prompts) / `plan`.
 */
const MODE_ALIASES: Readonly<Record<PermissionMode, readonly string[]>> = {
  default: ["default", "agent", "normal", "build", "code", "act"],
  acceptEdits: ["acceptedits", "autoedit", "autolow"],
  plan: ["plan", "spec"],
  bypassPermissions: ["bypasspermissions", "yolo", "autohigh", "autopilot"],
  dontAsk: ["dontask"],
  auto: ["auto"],
};

/**
 * Where an agent's mode of an alias name means something else: taken before {@link MODE_ALIASES}.
 * Kimi Code's `yolo` ("Ask When Needed") still asks before a dangerous command (`rm -rf` outside
 * temp dirs, `sudo …`, `mkfs`); its `auto` ("Never Ask") runs everything: that is bypassPermissions.
 * (Its ACP mode descriptions say the reverse; the CLI's help and its permission policies say this.)
 */
const AGENT_MODES: Readonly<Record<string, Partial<Record<PermissionMode, string>>>> = {
  kimi: { bypassPermissions: "auto" },
};

/** The controls an agent offers, kept current over the session. */
export class AcpSessionConfig {
  private options: SelectOption[] = [];
  private modes: { current: string | undefined; available: AcpChoice[] } | undefined;
  private models: { current: string | undefined; available: AcpChoice[] } | undefined;
  /** The model the session started with: what `setModel()` without a model goes back to. */
  private initialModel: string | undefined;

  constructor(private readonly agent: string) {}

  /** Reads a `session/new` / `session/load` / `session/resume` answer. */
  read(result: RawObject): void {
    if (Array.isArray(result.configOptions)) this.readOptions(result.configOptions);
    const modes = asObject(result.modes);
    if (Array.isArray(modes.availableModes)) {
      this.modes = {
        current: typeof modes.currentModeId === "string" ? modes.currentModeId : undefined,
        available: choices(modes.availableModes, "id"),
      };
    }
    const models = asObject(result.models);
    if (Array.isArray(models.availableModels)) {
      this.models = {
        current: typeof models.currentModelId === "string" ? models.currentModelId : undefined,
        available: choices(models.availableModels, "modelId"),
      };
    }
    this.initialModel ??= this.currentModel();
  }

  /** A `session/update` of this session: `config_option_update` and `current_mode_update` are kept. */
  update(update: RawObject): void {
    if (update.sessionUpdate === "config_option_update" && Array.isArray(update.configOptions)) {
      this.readOptions(update.configOptions);
    } else if (update.sessionUpdate === "current_mode_update" && typeof update.currentModeId === "string") {
      if (this.modes) this.modes.current = update.currentModeId;
    }
  }

  /** The answer to a request from {@link modelRequest} / {@link modeRequest} succeeded. */
  applied(request: AcpConfigRequest, result: RawObject): void {
    if (Array.isArray(result.configOptions)) this.readOptions(result.configOptions);
    else if (request.method === "session/set_mode" && this.modes)
      this.modes.current = String(request.params.modeId);
    else if (request.method === "session/set_model" && this.models) {
      this.models.current = String(request.params.modelId);
    }
  }

  /**
   * The request that selects `model` (by id or display name; `undefined`: the session's first
   * model) for the following turns.
   * @throws UnsupportedFeatureError when the agent offers no model choice; InvalidOptionsError
   *   when `model` is not one of its choices (the message lists them).
   */
  modelRequest(model: string | undefined): AcpConfigRequest {
    const option = this.modelOption();
    const wanted = model ?? this.initialModel;
    if (option) {
      const value = pick(option.choices, wanted, "setModel", this.agent);
      return { method: "session/set_config_option", params: { configId: option.id, value } };
    }
    if (this.models) {
      const modelId = pick(this.models.available, wanted, "setModel", this.agent);
      return { method: "session/set_model", params: { modelId } };
    }
    throw new UnsupportedFeatureError(
      `setModel (${this.agent} offers neither a "model" session config option nor session models)`,
      "acp",
    );
  }

  /**
   * The request that switches to the agent's mode for `mode`: one of ours (`plan`, `acceptEdits`,
   * …, matched to the agent's mode ids and names) or one of the agent's own mode ids.
   * @throws UnsupportedFeatureError when the agent offers no modes; InvalidOptionsError when none
   *   of its modes matches (the message lists them).
   */
  modeRequest(mode: string): AcpConfigRequest {
    const option = this.options.find((o) => o.category === "mode");
    if (option) {
      const value = matchMode(option.choices, mode, this.agent);
      return { method: "session/set_config_option", params: { configId: option.id, value } };
    }
    if (this.modes && this.modes.available.length > 0) {
      const modeId = matchMode(this.modes.available, mode, this.agent);
      return { method: "session/set_mode", params: { modeId } };
    }
    throw new UnsupportedFeatureError(
      `setPermissionMode (${this.agent} offers neither a "mode" session config option nor session modes)`,
      "acp",
    );
  }

  /** How `setModel` / `setPermissionMode` would be carried out now. */
  report(): Pick<AcpControlsReport, "setModel" | "setPermissionMode"> {
    const has = (category: string) => this.options.some((o) => o.category === category);
    return {
      setModel: has("model") ? "config_option" : this.models ? "set_model" : false,
      setPermissionMode: has("mode")
        ? "config_option"
        : this.modes && this.modes.available.length > 0
          ? "set_mode"
          : false,
    };
  }

  /**
   * The model option: of several in category `model` (Cline 3.0.65 sends a `provider` one before its
   * `model` one), the one with id `model`, else the first.
   */
  private modelOption(): SelectOption | undefined {
    const all = this.options.filter((o) => o.category === "model");
    return all.find((o) => o.id === "model") ?? all[0];
  }

  private currentModel(): string | undefined {
    const option = this.modelOption();
    return option ? option.currentValue : this.models?.current;
  }

  private readOptions(list: unknown[]): void {
    const out: SelectOption[] = [];
    for (const item of list) {
      if (!isObject(item) || item.type !== "select" || typeof item.id !== "string") continue;
      const flat: unknown[] = [];
      for (const entry of Array.isArray(item.options) ? item.options : []) {
        // Grouped options: each group's options, in order.
        if (isObject(entry) && Array.isArray(entry.options)) flat.push(...entry.options);
        else flat.push(entry);
      }
      out.push({
        id: item.id,
        category: typeof item.category === "string" ? item.category : undefined,
        currentValue: typeof item.currentValue === "string" ? item.currentValue : "",
        choices: choices(flat, "value"),
      });
    }
    this.options = out;
    this.initialModel ??= this.currentModel();
  }
}

function choices(list: unknown[], idKey: string): AcpChoice[] {
  const out: AcpChoice[] = [];
  for (const item of list) {
    if (!isObject(item) || typeof item[idKey] !== "string") continue;
    const id = item[idKey] as string;
    out.push({ id, name: typeof item.name === "string" ? item.name : id });
  }
  return out;
}

/** `wanted` as one of `choices`: its id exactly, else its display name (case-insensitive). */
function pick(choices: AcpChoice[], wanted: string | undefined, feature: string, agent: string): string {
  if (wanted !== undefined) {
    const exact = choices.find((c) => c.id === wanted);
    if (exact) return exact.id;
    const lower = wanted.toLowerCase();
    const named = choices.filter((c) => c.name.toLowerCase() === lower);
    if (named.length === 1 && named[0]) return named[0].id;
  }
  throw new InvalidOptionsError([
    `${feature}: ${agent} offers no ${describe(wanted)}; its choices: ${listChoices(choices)}`,
  ]);
}

/** The agent's mode for `mode`: its own id exactly, else ours through {@link MODE_ALIASES}. */
function matchMode(modes: AcpChoice[], mode: string, agent: string): string {
  const exact = modes.find((m) => m.id === mode);
  if (exact) return exact.id;
  const table = Object.hasOwn(AGENT_MODES, agent) ? AGENT_MODES[agent] : undefined;
  const own = table && Object.hasOwn(table, mode) ? table[mode as PermissionMode] : undefined;
  if (own !== undefined && modes.some((m) => m.id === own)) return own;
  const aliases = Object.hasOwn(MODE_ALIASES, mode)
    ? MODE_ALIASES[mode as PermissionMode]
    : [normalise(mode)];
  for (const alias of aliases) {
    const found = modes.find((m) => normalise(lastSegment(m.id)) === alias || normalise(m.name) === alias);
    if (found) return found.id;
  }
  throw new InvalidOptionsError([
    `setPermissionMode: ${agent} has no mode for ${describe(mode)}; its modes: ${listChoices(modes)}`,
  ]);
}

/** Copilot's mode ids are URLs (`…/session-modes#plan`): the part after the last `#` or `/`. */
function lastSegment(id: string): string {
  const cut = Math.max(id.lastIndexOf("#"), id.lastIndexOf("/"));
  return cut >= 0 ? id.slice(cut + 1) : id;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "");
}

function describe(value: string | undefined): string {
  return value === undefined ? "default model" : JSON.stringify(value.slice(0, 200));
}

function listChoices(choices: AcpChoice[]): string {
  if (choices.length === 0) return "(none)";
  const shown = choices.slice(0, 40).map((c) => (c.name !== c.id ? `${c.id} (${c.name})` : c.id));
  return `${shown.join(", ")}${choices.length > 40 ? `, … ${choices.length - 40} more` : ""}`;
}
