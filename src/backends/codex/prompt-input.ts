/**
 * User prompts in Codex's terms: text, plus images as files (`codex exec --image`) or as URLs
 * (app-server `turn/start` input). Text blocks are joined with newlines.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StreamedUserInput } from "../../prompt.js";
import type { UserInput } from "./protocol.js";

/**
 * An image of a prompt. `path` is a local file named by the caller (an image block whose `source`
 * is `{ type: "path", path }`, which the Codex compat entry point sends for `local_image` input):
 * Codex reads it itself, so the model sees the caller's own path, as with the official Codex SDK.
 */
export type PromptImage =
  | { kind: "base64"; mediaType: string; data: string }
  | { kind: "url"; url: string }
  | { kind: "path"; path: string };

/** A prompt split into its text and its images. */
export interface PromptParts {
  text: string;
  images: PromptImage[];
}

/** Splits one prompt (a string, content blocks, or a wire user message) into text and images. */
export function promptParts(input: StreamedUserInput): PromptParts {
  const content = typeof input === "string" || Array.isArray(input) ? input : input.message.content;
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: PromptImage[] = [];
  for (const block of content as Record<string, unknown>[]) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    if (block.type === "image") {
      const image = toImage(block.source);
      if (image) images.push(image);
    }
  }
  return { text: texts.join("\n"), images };
}

/** The `turn/start` input of a prompt. Base64 images travel as `data:` URLs. */
export function turnInput(parts: PromptParts): UserInput[] {
  const input: UserInput[] = parts.images.map((image) =>
    image.kind === "path"
      ? { type: "localImage", path: image.path }
      : {
          type: "image",
          url: image.kind === "url" ? image.url : `data:${image.mediaType};base64,${image.data}`,
        },
  );
  if (parts.text !== "" || input.length === 0)
    input.push({ type: "text", text: parts.text, text_elements: [] });
  return input;
}

/** A private temporary directory for the files one exec run needs; {@link remove} in `finally`. */
export class TempFiles {
  private dir: Promise<string> | undefined;

  /** Writes `data` to a new file and returns its path. */
  async write(name: string, data: string | Uint8Array): Promise<string> {
    this.dir ??= mkdtemp(join(tmpdir(), "code-agent-sdk-codex-"));
    const path = join(await this.dir, name);
    await writeFile(path, data, { mode: 0o600 });
    return path;
  }

  /** Removes the directory and everything in it. Safe to call more than once. */
  async remove(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Writes the base64 images of a prompt to files; URL images are not supported by `codex exec`. */
export async function writeImages(images: PromptImage[], files: TempFiles): Promise<string[]> {
  const paths: string[] = [];
  for (const [index, image] of images.entries()) {
    if (image.kind === "path") {
      paths.push(image.path);
      continue;
    }
    if (image.kind !== "base64") throw new TypeError("codex exec cannot attach an image by URL");
    const extension = image.mediaType.split("/")[1]?.replace("jpeg", "jpg") ?? "png";
    paths.push(await files.write(`image-${index + 1}.${extension}`, Buffer.from(image.data, "base64")));
  }
  return paths;
}

function toImage(source: unknown): PromptImage | undefined {
  if (typeof source !== "object" || source === null) return undefined;
  const s = source as Record<string, unknown>;
  if (s.type === "base64" && typeof s.data === "string") {
    return {
      kind: "base64",
      mediaType: typeof s.media_type === "string" ? s.media_type : "image/png",
      data: s.data,
    };
  }
  if (s.type === "url" && typeof s.url === "string") return { kind: "url", url: s.url };
  if (s.type === "path" && typeof s.path === "string" && s.path !== "") return { kind: "path", path: s.path };
  return undefined;
}
