/**
 * AI SDK prompt → what one agent turn needs: the system text, the session to resume (from the
 * `providerOptions` of the last assistant message we answered), and the new user input as this
 * SDK's prompt (text and image blocks). Without a session to resume, earlier turns are replayed as
 * a text transcript ahead of the last user message.
 */
import type {
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { InvalidOptionsError } from "../errors.js";
import type { BackendKind } from "../options.js";
import type { ImageInputBlock, UserContentBlock } from "../prompt.js";
import { sessionOf } from "./metadata.js";

/** The turn to run, converted from the AI SDK prompt. */
export interface ConvertedPrompt {
  /** The system messages, joined; `undefined` when there are none. */
  system: string | undefined;
  /** The session to resume: the one the last assistant message came from, when the caller allows it. */
  resume: string | undefined;
  /** The user input of this turn (plain text when it has no images). */
  prompt: string | UserContentBlock[];
  /** What was dropped or changed on the way. */
  warnings: SharedV3Warning[];
}

/** Options of {@link convertPrompt}. */
export interface ConvertPromptOptions {
  backend: BackendKind;
  /** Whether a session id found in the history may be resumed (see `CodeAgentSettings.resumeFromHistory`). */
  allowResume: (sessionId: string) => boolean;
}

type ImageMediaType = Extract<ImageInputBlock["source"], { type: "base64" }>["media_type"];

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * Converts an AI SDK prompt.
 * @throws InvalidOptionsError when there is no user input to send (no user message after the
 * resumed answer, or an empty prompt).
 */
export function convertPrompt(prompt: LanguageModelV3Prompt, options: ConvertPromptOptions): ConvertedPrompt {
  const warnings: SharedV3Warning[] = [];
  const system = prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const conversation = prompt.filter((m) => m.role !== "system");

  // The last assistant message that names one of our sessions on this backend.
  let resumeAt = -1;
  let resume: string | undefined;
  for (let i = conversation.length - 1; i >= 0 && resume === undefined; i--) {
    const message = conversation[i] as LanguageModelV3Message;
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      const session = sessionOf(part.providerOptions);
      if (session?.backend === options.backend && options.allowResume(session.sessionId)) {
        resume = session.sessionId;
        resumeAt = i;
        break;
      }
    }
    // Only the newest assistant answer counts: an older session would lose the turns after it.
    break;
  }

  const pending = conversation.slice(resumeAt + 1);
  const lastUser = lastIndexOf(pending, (m) => m.role === "user");
  if (lastUser === -1) {
    throw new InvalidOptionsError([
      resume === undefined
        ? "prompt: has no user message to send to the agent"
        : "prompt: has no user message after the agent's last answer",
    ]);
  }
  const earlier = pending.slice(0, lastUser);
  const blocks: UserContentBlock[] = [];
  // The user messages sent since the resumed answer (or, without a session, the history as text).
  const transcript = resume === undefined ? replay(earlier, warnings) : userText(earlier, warnings);
  if (transcript !== "") blocks.push({ type: "text", text: transcript });
  for (const part of (pending[lastUser] as Extract<LanguageModelV3Message, { role: "user" }>).content) {
    if (part.type === "text") blocks.push({ type: "text", text: part.text });
    else addFile(part, blocks, warnings);
  }
  const onlyText = blocks.every((b) => b.type === "text");
  return {
    system: system === "" ? undefined : system,
    resume,
    prompt: onlyText ? blocks.map((b) => (b as { text: string }).text).join("\n\n") : blocks,
    warnings,
  };
}

function lastIndexOf<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i] as T)) return i;
  return -1;
}

/** Text of the user messages in `messages` (sent after the resumed answer, before the last one). */
function userText(messages: LanguageModelV3Message[], warnings: SharedV3Warning[]): string {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    for (const part of m.content) {
      if (part.type === "text") out.push(part.text);
      else dropped(warnings, "file part of an earlier user message");
    }
  }
  return out.join("\n\n");
}

/** Earlier turns as a transcript, for a conversation with no session to resume. */
function replay(messages: LanguageModelV3Message[], warnings: SharedV3Warning[]): string {
  if (messages.length === 0) return "";
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      const text = m.content.map((p) => (p.type === "text" ? p.text : "[file]")).join("\n");
      lines.push(`User: ${text}`);
    } else if (m.role === "assistant") {
      const text = m.content
        .map((p) => {
          if (p.type === "text") return p.text;
          if (p.type === "tool-call") return `[called ${p.toolName}]`;
          return "";
        })
        .filter((t) => t !== "")
        .join("\n");
      if (text !== "") lines.push(`Assistant: ${text}`);
    }
  }
  if (lines.length === 0) return "";
  warnings.push({
    type: "compatibility",
    feature: "conversation history",
    details: "no session to resume: earlier turns were replayed to the agent as a text transcript",
  });
  return `The conversation so far:\n\n${lines.join("\n\n")}\n\nThe user's new message follows.`;
}

/** `new URL(text)`, or `null` when it does not parse (Node 20 has no `URL.parse`). */
function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function addFile(
  part: LanguageModelV3FilePart,
  blocks: UserContentBlock[],
  warnings: SharedV3Warning[],
): void {
  const mediaType = part.mediaType.toLowerCase();
  const data = part.data as LanguageModelV3FilePart["data"] | { type?: unknown; text?: unknown };
  // `ai` 7 adapts its v4 file data for a v3 model by unwrapping bytes and URLs only: inline text
  // (`{ type: "text", text }`) and provider references (`{ type: "reference" }`) arrive as objects.
  if (typeof data === "object" && !(data instanceof URL) && !(data instanceof Uint8Array)) {
    if (data.type === "text" && typeof data.text === "string")
      blocks.push({ type: "text", text: part.filename ? `${part.filename}:\n${data.text}` : data.text });
    else dropped(warnings, `file part ${mediaType} given as a provider reference`);
    return;
  }
  // `ai` 7 hands a v3 model a URL it was given as a string; base64 never holds a ":".
  const url =
    data instanceof URL
      ? data
      : typeof data === "string" && /^https?:\/\//i.test(data)
        ? parseUrl(data)
        : undefined;
  if (url !== undefined) {
    if (url === null) {
      dropped(warnings, `file part ${mediaType} with a malformed URL`);
      return;
    }
    // `ai` 7 names an image part's type "image" when the caller gave no subtype.
    const image = mediaType === "image" || mediaType.startsWith("image/");
    if (image && (url.protocol === "https:" || url.protocol === "http:")) {
      blocks.push({ type: "image", source: { type: "url", url: url.href } });
    } else dropped(warnings, `file part ${mediaType} given by URL`);
    return;
  }
  if (data instanceof URL) return;
  if (IMAGE_TYPES.has(mediaType)) {
    const base64 = typeof data === "string" ? data : Buffer.from(data).toString("base64");
    blocks.push({
      type: "image",
      source: { type: "base64", media_type: mediaType as ImageMediaType, data: base64 },
    });
    return;
  }
  if (mediaType.startsWith("text/")) {
    const text =
      typeof data === "string"
        ? Buffer.from(data, "base64").toString("utf8")
        : Buffer.from(data).toString("utf8");
    blocks.push({ type: "text", text: part.filename ? `${part.filename}:\n${text}` : text });
    return;
  }
  dropped(warnings, `file part of type ${mediaType}`);
}

function dropped(warnings: SharedV3Warning[], what: string): void {
  warnings.push({ type: "unsupported", feature: what, details: "left out of the prompt sent to the agent" });
}
