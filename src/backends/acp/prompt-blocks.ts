/**
 * A user turn as ACP `session/prompt` content blocks.
 */
import { UnsupportedFeatureError } from "../../errors.js";
import type { StreamedUserInput } from "../../prompt.js";

/** One ACP content block this SDK sends. */
export type AcpPromptBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string };

/**
 * The blocks of one turn: text as text; a base64 image as an ACP image (only when the agent
 * declared `promptCapabilities.image`); an image URL as a `resource_link`.
 *
 * @throws UnsupportedFeatureError for an image the agent cannot take, or a block of another kind.
 */
export function acpPromptBlocks(
  input: StreamedUserInput,
  caps: { image: boolean },
  agent: string,
): AcpPromptBlock[] {
  if (typeof input === "string") return [{ type: "text", text: input }];
  const content: unknown = Array.isArray(input) ? input : input.message.content;
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw new UnsupportedFeatureError("non-text prompt content", `acp (${agent})`);
  return content.map((block: Record<string, unknown>): AcpPromptBlock => {
    if (block.type === "text" && typeof block.text === "string") return { type: "text", text: block.text };
    if (block.type === "image") {
      const source = (block.source ?? {}) as Record<string, unknown>;
      if (source.type === "url" && typeof source.url === "string") {
        return { type: "resource_link", uri: source.url, name: source.url };
      }
      if (!caps.image) {
        throw new UnsupportedFeatureError(
          "image prompts (the agent does not declare promptCapabilities.image)",
          `acp (${agent})`,
        );
      }
      return {
        type: "image",
        data: String(source.data ?? ""),
        mimeType: String(source.media_type ?? "image/png"),
      };
    }
    const kind = typeof block.type === "string" ? block.type : "untyped";
    throw new UnsupportedFeatureError(`${kind} prompt blocks`, `acp (${agent})`);
  });
}
