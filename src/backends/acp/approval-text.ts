/**
 * Tool inputs read back from the approval text of an agent whose permission requests carry no
 * `rawInput`. Kimi Code 2.1.0 asks `{ title: "Bash", content: "Requesting approval to Running:
 * <preview>" }`, the preview being the command cut to its first 50 UTF-16 units and `…` when longer
 * (`Starting background: <preview>` for a background command), and `Writing <path>` /
 * `Editing <path>` (the path whole, as the model gave it; an edit's diff first, read as
 * `diff <path>`) for its file tools. Before it asks, it streams the call's arguments as the content
 * text of `tool_call_update`s: by then the whole JSON (`{"command":"…"}`).
 *
 * Nothing is made up: the streamed arguments are taken only where they agree with what the agent
 * says it runs (the same preview, the same path), and a preview cut short is never a command.
 */
import { isObject, str } from "../../wire/read.js";

const PREFIX = "Requesting approval to ";
/** Kimi cuts a command longer than this many UTF-16 units in its preview. */
const PREVIEW_LENGTH = 50;

/**
 * The command a shell approval text names: the streamed arguments' `command` when its preview is
 * the one shown, else the shown preview when it is whole (at most 50 units); else undefined.
 *
 * @param description - The call's described content text (`input.description`).
 * @param argsText - The last content text of the call that was a JSON object, if any.
 */
export function approvalCommand(description: unknown, argsText: unknown): string | undefined {
  if (typeof description !== "string" || !description.startsWith(PREFIX)) return undefined;
  const match = /^(?:Running|Starting background): ([\s\S]*)$/.exec(description.slice(PREFIX.length));
  const preview = match?.[1];
  if (preview === undefined || preview === "") return undefined;
  // Kimi reads its arguments with JSON.parse, as here; a second `"command"` key (where parsers
  // could differ) is not trusted.
  const once = typeof argsText === "string" && (argsText.match(/"command"\s*:/g) ?? []).length === 1;
  const streamed = once ? str(streamedArguments(argsText)?.command) : undefined;
  if (streamed !== undefined && previewOf(streamed) === preview) return streamed;
  return preview.length <= PREVIEW_LENGTH ? preview : undefined;
}

/**
 * The file a file-tool approval text names (`Writing <path>`, `Editing <path>`, `Reading <path>`,
 * after the edit's `diff <path>` line when there is one, which must name the same path).
 *
 * @param description - The call's described content text (`input.description`).
 */
export function approvalPath(description: unknown): string | undefined {
  if (typeof description !== "string") return undefined;
  for (const verb of ["Writing", "Editing", "Reading"]) {
    const lead = `${PREFIX}${verb} `;
    if (description.startsWith(lead)) return nonEmpty(description.slice(lead.length));
    // `diff <path>\n<lead><path>`: the path's length follows from the whole text's.
    const length = (description.length - "diff \n".length - lead.length) / 2;
    if (!description.startsWith("diff ") || !Number.isInteger(length) || length <= 0) continue;
    const path = description.slice(5, 5 + length);
    if (description === `diff ${path}\n${lead}${path}`) return path;
  }
  return undefined;
}

/**
 * The streamed arguments of an approval, for the file tools' other fields: only when they name
 * the same `path` as the approval text.
 *
 * @param path - The path from {@link approvalPath}.
 * @param argsText - The last content text of the call that was a JSON object, if any.
 */
export function approvalArguments(path: string, argsText: unknown): Record<string, unknown> | undefined {
  const args = streamedArguments(argsText);
  return args && str(args.path) === path ? args : undefined;
}

/** `text` as a JSON object, or undefined. */
function streamedArguments(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== "string" || !text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Kimi's preview of `command`: whole up to 50 units, else the first 50 and `…`. */
function previewOf(command: string): string {
  return command.length > PREVIEW_LENGTH ? `${command.slice(0, PREVIEW_LENGTH)}…` : command;
}

function nonEmpty(text: string): string | undefined {
  return text === "" ? undefined : text;
}
