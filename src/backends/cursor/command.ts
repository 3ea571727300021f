/**
 * The argv, environment and prompt text of one Cursor Agent turn.
 *
 * Cursor has no input protocol: every turn is a fresh `cursor-agent --print` process with the
 * prompt in argv (after `--`, so a prompt starting with `-` is never read as a flag) and stdin
 * unused. Flags follow what is documented of the CLI (see the shared CURSOR.md): the ones every
 * known driver uses (`--print`, `--output-format`, `--stream-partial-output`, `--model`, `--force`,
 * `--resume`) and the newer ones (`--mode`, `--sandbox`, `--trust`, `--workspace`) only when the
 * caller asks for what they do.
 */
import { resolve } from "node:path";
import { UnsupportedFeatureError } from "../../errors.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { flagWithValue } from "../../process/argv.js";
import { buildChildEnv } from "../../process/child-env.js";
import type { StreamedUserInput, UserContentBlock } from "../../prompt.js";

/**
 * What to do about a prompt too long for argv: cursor-agent reads its prompt from its arguments
 * only (stdin is unused), so the long part has to reach it another way.
 */
export const PROMPT_TOO_LONG_HINT =
  "The prompt is too long to pass: cursor-agent takes its prompt only as a command-line argument (it does not read stdin). " +
  'Write the long part to a file in the workspace (cwd) and ask the agent to read it, e.g. prompt: "Follow the instructions in TASK.md".';

/** The flags every turn starts with: headless mode, one JSON event per line. */
export const BASE_CURSOR_ARGS: readonly string[] = ["--print", "--output-format", "stream-json"];

/** Whether text deltas are requested: `cursor.partialOutput` when set, else `includePartialMessages`. */
export function wantsPartialOutput(options: ResolvedOptions): boolean {
  return options.cursor?.partialOutput ?? options.includePartialMessages ?? false;
}

/**
 * Builds the arguments (without the executable) of one turn.
 *
 * @param turn.prompt The turn's prompt text (see {@link cursorPromptText}).
 * @param turn.resume The chat to continue (`--resume <chatId>`); a new chat when absent.
 */
export function buildCursorArgs(
  options: ResolvedOptions,
  turn: { prompt: string; resume?: string },
): string[] {
  const args = [...BASE_CURSOR_ARGS];
  // A value that starts with `-` is joined to its flag, so it cannot be read as one (the options
  // schema refuses such ids and model names already; this covers `extraArgs` values).
  const push = (flag: string, value?: string) => {
    if (value === undefined) args.push(flag);
    else args.push(...flagWithValue(flag, value));
  };
  const cursor = options.cursor ?? {};
  if (wantsPartialOutput(options)) push("--stream-partial-output");
  if (options.model !== undefined) push("--model", options.model);
  if (cursor.forceApprove) push("--force");
  if (cursor.mode !== undefined) push("--mode", cursor.mode);
  if (cursor.sandbox !== undefined) push("--sandbox", cursor.sandbox);
  if (cursor.trustWorkspace) push("--trust");
  // Absolute: the process already runs in `cwd`, so a relative path would resolve twice.
  if (options.cwd !== undefined) push("--workspace", resolve(options.cwd));
  if (turn.resume !== undefined) push("--resume", turn.resume);
  // Last among the flags, so a caller can reach flags this SDK does not model.
  for (const [flag, value] of Object.entries(options.extraArgs ?? {})) push(`--${flag}`, value ?? undefined);
  args.push("--", turn.prompt);
  return args;
}

/**
 * The child's environment: `process.env` (unless `inheritEnv: false`), then `options.env` on top
 * (an `undefined` value removes the variable), then `CURSOR_API_KEY` from `cursor.apiKey` when
 * given. The key travels in the environment only, never in argv, where any user of the machine
 * could read it.
 */
export function buildCursorEnv(
  options: Pick<ResolvedOptions, "env" | "inheritEnv" | "cursor">,
): Record<string, string> {
  const env = buildChildEnv(options);
  if (options.cursor?.apiKey !== undefined) env.CURSOR_API_KEY = options.cursor.apiKey;
  return env;
}

/**
 * The text of one prompt item: a string as is; text blocks joined with blank lines; a wire user
 * message by its content. Cursor's argv prompt carries text only.
 *
 * @throws UnsupportedFeatureError for an image (or any non-text) block, before anything is spawned.
 */
export function cursorPromptText(input: StreamedUserInput): string {
  if (typeof input === "string") return input;
  const content: unknown = Array.isArray(input) ? input : input.message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new UnsupportedFeatureError("non-text prompt content", "cursor");
  return content
    .map((block: UserContentBlock | Record<string, unknown>) => {
      if (block.type === "text" && typeof block.text === "string") return block.text;
      const kind = typeof block.type === "string" ? block.type : "untyped";
      throw new UnsupportedFeatureError(`${kind} prompt blocks`, "cursor");
    })
    .join("\n\n");
}
