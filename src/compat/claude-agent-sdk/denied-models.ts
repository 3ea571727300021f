/**
 * `matchDeniedModels()` of the official SDK: which model IDs a managed `deniedModels` list blocks,
 * compared by name alone (never the CLI's enforcement).
 */
import { describeValue } from "../../wire/safe-json.js";
import type { DeniedModelsMatch } from "./types.js";

/** Model families an entry may name on its own (`opus` blocks every Opus model). */
const FAMILIES = new Set(["sonnet", "opus", "haiku", "fable"]);
/** A Claude model ID: optional generation, family, optional version parts (`claude-3-5-haiku-…`, `claude-opus-4-1`). */
const MODEL_ID = /^claude-(?:\d+(?:-\d+)*-)?(sonnet|opus|haiku|fable)(?:-[0-9a-z]+)*$/;

type Entry =
  | { kind: "family"; family: string }
  | { kind: "model"; id: string }
  | { kind: "literal"; value: string };

/** A model name as compared: lower case, without a cloud provider's prefix or version suffix. */
function canonicalModel(model: string): string {
  let m = model.trim().toLowerCase();
  const anthropic = m.lastIndexOf("anthropic.");
  if (anthropic !== -1) m = m.slice(anthropic + "anthropic.".length);
  const at = m.indexOf("@");
  if (at !== -1) m = m.slice(0, at);
  return m.replace(/-v\d+(?::\d+)?$/, "");
}

function parseEntry(raw: string, warnings: string[]): Entry | undefined {
  const value = raw.trim().toLowerCase();
  if (value === "") {
    warnings.push("An empty deniedModels entry was ignored.");
    return undefined;
  }
  if (FAMILIES.has(value)) return { kind: "family", family: value };
  const bare = value.startsWith("claude-") ? value.slice("claude-".length) : "";
  if (FAMILIES.has(bare)) return { kind: "family", family: bare };
  const id = value.startsWith("claude-") ? value : `claude-${value}`;
  if (MODEL_ID.test(id)) return { kind: "model", id };
  warnings.push(
    `"${raw}" blocks only the exact model name "${raw}"; other spellings of the same model are not blocked.` +
      (/^[a-z]+$/.test(value)
        ? " To block a model family other than sonnet, opus, haiku or fable, list its versioned IDs."
        : ""),
  );
  return { kind: "literal", value };
}

function blocks(entry: Entry, model: string): boolean {
  const canonical = canonicalModel(model);
  switch (entry.kind) {
    case "family":
      return MODEL_ID.exec(canonical)?.[1] === entry.family;
    case "model":
      return canonical === entry.id || canonical.startsWith(`${entry.id}-`);
    case "literal":
      return model.trim().toLowerCase() === entry.value;
  }
}

/**
 * Says which of `models` a managed `deniedModels` list blocks, without starting the CLI. Nothing
 * throws: a bad list or entry is ignored (noted in `warnings`), a bad model is `false`. `true`
 * means the CLI refuses the model too; `false` promises nothing (aliases and custom names are not
 * resolved here).
 */
export async function matchDeniedModels(
  models: readonly string[],
  deniedModels: readonly string[] | undefined,
): Promise<DeniedModelsMatch> {
  const warnings: string[] = [];
  const entries: Entry[] = [];
  if (Array.isArray(deniedModels)) {
    for (const raw of deniedModels as readonly unknown[]) {
      if (typeof raw !== "string") {
        warnings.push(
          `"deniedModels" contained a non-string entry (${raw === null ? "null" : typeof raw}); the entry was ignored.`,
        );
        continue;
      }
      const entry = parseEntry(raw, warnings);
      if (entry) entries.push(entry);
    }
  } else if (deniedModels !== undefined) {
    warnings.push(`"deniedModels" is not a list (${describeValue(deniedModels)}), so nothing is blocked.`);
  }
  if (!Array.isArray(models)) {
    warnings.push('"models" is not a list of model names, so nothing was matched.');
    return { denied: [], warnings };
  }
  const denied = (models as readonly unknown[]).map((model) => {
    if (typeof model !== "string") {
      warnings.push(
        `"models" contained a non-string entry (${model === null ? "null" : typeof model}), which is not a model name, so it cannot be matched.`,
      );
      return false;
    }
    return entries.some((entry) => blocks(entry, model));
  });
  return { denied, warnings };
}
