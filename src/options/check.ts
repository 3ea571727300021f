/**
 * The backends' front door to option validation. Options made only of the plain options
 * (`plain.ts`) are checked here without zod; anything else goes to the options schema
 * (`options-schema.ts`: zod/mini and the Claude settings schema), which is loaded on first need —
 * in a fresh process it costs ~15 ms of CPU to load, more than the rest of a plain Codex query's
 * option handling. Validation stays synchronous: whoever hands options to a backend loads the
 * schema first when they need it (`backendFor`, `loadBackend`: see `src/backends/registry.ts`).
 */
import { AgentSdkError, InvalidOptionsError } from "../errors.js";
import { CLI_OWNED_OPTIONS, plainOptionsValid } from "./plain.js";
import { type OptionSchemaValidators, optionSchemaValidators } from "./schema-slot.js";

let loading: Promise<void> | undefined;

/** Loads the options schema (once per process; it registers itself). A failed load may be retried. */
export function loadOptionSchema(): Promise<void> {
  if (optionSchemaLoaded()) return Promise.resolve();
  loading ??= import("../options-schema.js").then(
    () => undefined,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Whether the options schema is loaded in this process. */
export function optionSchemaLoaded(): boolean {
  return optionSchemaValidators() !== undefined;
}

/** Whether validating `options` needs the options schema: they are not all plain options. */
export function optionSchemaNeeded(options: unknown): boolean {
  return options !== undefined && !plainOptionsValid(options);
}

function loadedSchema(): OptionSchemaValidators {
  const schema = optionSchemaValidators();
  if (schema === undefined) {
    throw new AgentSdkError(
      'The options schema is not loaded yet: await loadBackend(kind) (from "code-agent-sdk") before validating these options',
    );
  }
  return schema;
}

/**
 * Every problem with `options` as `path: message` strings (empty when valid). Plain options are
 * answered here; others by the options schema's `agentOptionsIssues`.
 * @throws AgentSdkError when the options need the schema and it is not loaded (see the module comment).
 */
export function agentOptionsIssues(options: unknown): string[] {
  if (!optionSchemaNeeded(options)) return [];
  return loadedSchema().agentOptionsIssues(options);
}

/**
 * Throws `InvalidOptionsError` listing every problem with `options` (see {@link agentOptionsIssues}).
 * @throws InvalidOptionsError when `options` are invalid.
 */
export function validateAgentOptions(options: unknown): void {
  const issues = agentOptionsIssues(options);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
}

/**
 * Warns once per field about fields of CLI-owned nested options this SDK does not know (see the
 * options schema's `warnUnknownNestedFields`); options without any CLI-owned option have none.
 */
export function warnUnknownNestedFields(options: unknown): void {
  if (typeof options !== "object" || options === null) return;
  const record = options as Record<string, unknown>;
  if (CLI_OWNED_OPTIONS.every((key) => record[key] === undefined || record[key] === null)) return;
  loadedSchema().warnUnknownNestedFields(options);
}
