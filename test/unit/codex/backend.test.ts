/**
 * The Codex backend: capabilities, which command a session runs on, prompt conversion.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CodexBackend, execCanRun } from "../../../src/backends/codex/backend.js";
import { promptParts, TempFiles, turnInput, writeImages } from "../../../src/backends/codex/prompt-input.js";
import {
  CliNotFoundError,
  getBackend,
  image,
  loadBackend,
  text,
  UnsupportedOptionsError,
} from "../../../src/index.js";

describe("CodexBackend", () => {
  it("declares what Codex can do, before and after it is loaded", async () => {
    expect(getBackend("codex").capabilities).toBe(new CodexBackend().capabilities);
    expect(await loadBackend("codex")).toBeInstanceOf(CodexBackend);
    expect(getBackend("codex")).toBeInstanceOf(CodexBackend);
    expect(new CodexBackend().capabilities).toEqual({
      controlProtocol: false,
      toolApproval: true,
      hooks: false,
      sdkMcpRouting: false,
      persistentSession: true,
      warmStart: true,
      interrupt: true,
      runtimeConfigChanges: false,
      modelSwitching: true,
      mcpStatus: true,
      toolPolicy: "asked-calls",
    });
  });

  it("validates before looking for the CLI, and names a missing CLI", async () => {
    const backend = new CodexBackend();
    await expect(
      backend.openSession({
        options: { systemPrompt: "x", cliPath: "/nonexistent/codex" },
        oneShot: true,
        initialPrompt: "hi",
      }),
    ).rejects.toBeInstanceOf(UnsupportedOptionsError);
    await expect(
      backend.openSession({ options: { cliPath: "/nonexistent/codex" }, oneShot: true, initialPrompt: "hi" }),
    ).rejects.toBeInstanceOf(CliNotFoundError);
  });
});

describe("execCanRun: which one-shot prompts run on `codex exec`", () => {
  const plain = promptParts("hi");
  it("runs plain one-shot prompts on exec", () => {
    expect(execCanRun({}, plain)).toBe(true);
    expect(execCanRun({ codex: { approvalPolicy: "never" } }, plain)).toBe(true);
    expect(execCanRun({}, promptParts([text("a"), image("AAAA")]))).toBe(true);
  });

  it("needs the app-server for approvals, partial messages and URL images", () => {
    expect(execCanRun({ canUseTool: () => ({ behavior: "allow" }) }, plain)).toBe(false);
    expect(execCanRun({ includePartialMessages: true }, plain)).toBe(false);
    expect(execCanRun({ codex: { approvalPolicy: "untrusted" } }, plain)).toBe(false);
    expect(execCanRun({ codex: { approvalPolicy: "on-request" } }, plain)).toBe(false);
    const url = promptParts([{ type: "image", source: { type: "url", url: "https://x/y.png" } }]);
    expect(execCanRun({}, url)).toBe(false);
  });
});

describe("prompt conversion", () => {
  it("joins text blocks and collects images, from content blocks or a wire user message", () => {
    expect(promptParts([text("a"), image("AAAA", "image/jpeg"), text("b")])).toEqual({
      text: "a\nb",
      images: [{ kind: "base64", mediaType: "image/jpeg", data: "AAAA" }],
    });
    expect(promptParts({ type: "user", message: { role: "user", content: "wire" } })).toEqual({
      text: "wire",
      images: [],
    });
    expect(
      promptParts({
        type: "user",
        message: { role: "user", content: [{ type: "text", text: "x" }, { type: "tool_result" }] },
      }),
    ).toEqual({ text: "x", images: [] });
  });

  it("turns a prompt into turn/start input: images as URLs (base64 as data: URLs), then the text", () => {
    expect(
      turnInput(
        promptParts([
          text("look"),
          image("AAAA"),
          { type: "image", source: { type: "url", url: "https://x/y.png" } },
        ]),
      ),
    ).toEqual([
      { type: "image", url: "data:image/png;base64,AAAA" },
      { type: "image", url: "https://x/y.png" },
      { type: "text", text: "look", text_elements: [] },
    ]);
    expect(turnInput({ text: "", images: [] })).toEqual([{ type: "text", text: "", text_elements: [] }]);
  });

  it("an image by local path stays that path: localImage for turn/start, the same path for exec (no copy)", async () => {
    const parts = promptParts([
      { type: "image", source: { type: "path", path: "/home/u/shot.png" } } as never,
      text("what is this?"),
    ]);
    expect(turnInput(parts)).toEqual([
      { type: "localImage", path: "/home/u/shot.png" },
      { type: "text", text: "what is this?", text_elements: [] },
    ]);
    const files = new TempFiles();
    expect(await writeImages(parts.images, files)).toEqual(["/home/u/shot.png"]);
    await files.remove();
  });

  it("writes images to private temporary files and removes them", async () => {
    const files = new TempFiles();
    const [path] = await writeImages(
      [{ kind: "base64", mediaType: "image/jpeg", data: Buffer.from("jpeg!").toString("base64") }],
      files,
    );
    expect(path).toMatch(/image-1\.jpg$/);
    expect(readFileSync(path!, "utf8")).toBe("jpeg!");
    await files.remove();
    expect(existsSync(path!)).toBe(false);
    await files.remove();
  });
});
