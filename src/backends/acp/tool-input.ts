/**
 * ACP tool inputs in the SDK's tool vocabulary (`src/tools.ts`). Every agent sends its own
 * `rawInput` (Claude Code's adapter `{ command }`, codex-acp an argv, Gemini CLI none at all, only
 * a title and locations): the canonical fields are added beside the agent's own, so a
 * `canUseTool` rule or a message consumer reads `input.command` / `input.file_path` on every agent.
 * Nothing is made up: a field the agent gave no source for stays absent.
 */

import { asObject, isObject, str } from "../../wire/read.js";
import { unwrapShellCommand } from "../shell-command.js";
import { approvalArguments, approvalCommand, approvalPath } from "./approval-text.js";

/**
 * The input of a call named `name` (see `acpToolName`), with the canonical fields added.
 * `argsText`: the call's last content text that was a JSON object (Kimi Code streams its
 * arguments so), read only to complete what an approval text shows (see `approval-text.ts`).
 */
export function unifiedAcpInput(
  name: string,
  input: Record<string, unknown>,
  title: unknown,
  update: Record<string, unknown>,
  argsText?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  const set = (key: string, value: unknown) => {
    if (value !== undefined && out[key] === undefined) out[key] = value;
  };
  switch (name) {
    case "Bash": {
      const raw = input.command ?? input.cmd ?? input.argv;
      const source =
        typeof raw === "string" || (Array.isArray(raw) && raw.every((a) => typeof a === "string"))
          ? (raw as string | string[])
          : (commandList(input.commands) ??
            approvalCommand(input.description, argsText) ??
            // A title that is only the tool's name (Kimi's "Bash") is no command.
            (typeof title === "string" && title !== "" && title !== name ? title : undefined));
      if (source !== undefined) {
        const unwrapped = unwrapShellCommand(source);
        out.command = unwrapped.command;
        if (unwrapped.argv && out.argv === undefined) out.argv = unwrapped.argv;
      }
      set("cwd", str(input.cwd) ?? str(input.workdir) ?? str(input.directory));
      break;
    }
    case "Read":
    case "Edit": {
      const diff = firstDiff(update);
      const approved = approvalPath(input.description);
      set(
        "file_path",
        filePath(input) ??
          soleEntry(input.files, "path") ??
          str(diff?.path) ??
          firstLocation(update) ??
          approved,
      );
      const streamed =
        approved !== undefined && out.file_path === approved
          ? approvalArguments(approved, argsText)
          : undefined;
      if (streamed && name === "Edit") {
        set("old_string", str(streamed.old_string));
        set("new_string", str(streamed.new_string));
        set("content", str(streamed.content));
      }
      if (name === "Edit") {
        set(
          "old_string",
          str(input.oldText) ?? str(input.old_str) ?? str(input.old_text) ?? str(diff?.oldText),
        );
        set(
          "new_string",
          str(input.newText) ?? str(input.new_str) ?? str(input.new_text) ?? str(diff?.newText),
        );
      }
      break;
    }
    case "Grep":
      set("pattern", str(input.query) ?? str(input.regex) ?? soleEntry(input.queries));
      set("path", filePath(input) ?? firstLocation(update));
      break;
    case "WebFetch":
      set("url", str(input.uri) ?? str(input.href) ?? soleEntry(input.requests, "url"));
      break;
  }
  return out;
}

/**
 * Cline's `run_commands` input: `commands`, an array of independent shell command lines (each run on
 * its own, not an argv). One command line for a rule to read: one line each, joined by newlines.
 */
function commandList(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (!value.every((c): c is string => typeof c === "string")) return undefined;
  return value.join("\n");
}

/**
 * The one entry of a list input (Cline's `read_files` `files: [{ path }]`, `search_codebase`
 * `queries: [pattern]`, `fetch_web_content` `requests: [{ url }]`): its string, or its `key` field.
 * A list of several has no one canonical value: the field stays absent and the agent's list is
 * what a rule reads.
 */
function soleEntry(list: unknown, key?: string): string | undefined {
  if (!Array.isArray(list) || list.length !== 1) return undefined;
  return key === undefined ? str(list[0]) : str(asObject(list[0])[key]);
}

function filePath(input: Record<string, unknown>): string | undefined {
  return (
    str(input.file_path) ??
    str(input.filePath) ??
    str(input.absolute_path) ??
    str(input.abs_path) ??
    str(input.path) ??
    str(input.file) ??
    // Droid's LS (kind read) lists this directory.
    str(input.directory_path)
  );
}

function firstLocation(update: Record<string, unknown>): string | undefined {
  const locations = Array.isArray(update.locations) ? update.locations : [];
  return str(asObject(locations[0]).path);
}

function firstDiff(update: Record<string, unknown>): Record<string, unknown> | undefined {
  const content = Array.isArray(update.content) ? update.content : [];
  const diff = content.find((item) => isObject(item) && item.type === "diff");
  return isObject(diff) ? diff : undefined;
}
