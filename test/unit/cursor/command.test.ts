import { resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  buildCursorArgs,
  buildCursorEnv,
  cursorPromptText,
  wantsPartialOutput,
} from "../../../src/backends/cursor/command.js";
import { UnsupportedFeatureError } from "../../../src/errors.js";
import { image, text } from "../../../src/prompt.js";

describe("buildCursorArgs", () => {
  it("a bare turn: print mode, stream-json, the prompt after --", () => {
    expect(buildCursorArgs({}, { prompt: "hello" })).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--",
      "hello",
    ]);
  });

  it("every supported option, in a fixed order, with the prompt last", () => {
    const args = buildCursorArgs(
      {
        model: "gpt-5",
        cwd: "rel/dir",
        includePartialMessages: true,
        extraArgs: { "approve-mcps": null, header: "X-A: 1" },
        cursor: {
          forceApprove: true,
          mode: "plan",
          sandbox: "enabled",
          trustWorkspace: true,
          apiKey: "secret",
        },
      },
      { prompt: "--looks-like-a-flag", resume: "chat-1" },
    );
    expect(args).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--stream-partial-output",
      "--model",
      "gpt-5",
      "--force",
      "--mode",
      "plan",
      "--sandbox",
      "enabled",
      "--trust",
      "--workspace",
      resolve("rel/dir"),
      "--resume",
      "chat-1",
      "--approve-mcps",
      "--header",
      "X-A: 1",
      "--",
      "--looks-like-a-flag",
    ]);
    // The API key never reaches argv.
    expect(args.join(" ")).not.toContain("secret");
  });

  it("switched-off booleans add nothing", () => {
    expect(
      buildCursorArgs({ cursor: { forceApprove: false, trustWorkspace: false } }, { prompt: "p" }),
    ).toHaveLength(5);
  });
});

describe("wantsPartialOutput", () => {
  it("cursor.partialOutput wins; otherwise includePartialMessages; default off", () => {
    expect(wantsPartialOutput({})).toBe(false);
    expect(wantsPartialOutput({ includePartialMessages: true })).toBe(true);
    expect(wantsPartialOutput({ cursor: { partialOutput: true } })).toBe(true);
    expect(wantsPartialOutput({ includePartialMessages: true, cursor: { partialOutput: false } })).toBe(
      false,
    );
  });
});

describe("buildCursorEnv", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("inherits process.env, layers options.env, and sets CURSOR_API_KEY from cursor.apiKey", () => {
    vi.stubEnv("CURSOR_API_KEY", "from-env");
    vi.stubEnv("CAS_CURSOR_TEST_DROP", "x");
    expect(buildCursorEnv({})).toMatchObject({ CURSOR_API_KEY: "from-env", CAS_CURSOR_TEST_DROP: "x" });
    const env = buildCursorEnv({
      env: { CAS_CURSOR_TEST_DROP: undefined, A: "1" },
      cursor: { apiKey: "from-options" },
    });
    expect(env).toMatchObject({ CURSOR_API_KEY: "from-options", A: "1" });
    expect(env).not.toHaveProperty("CAS_CURSOR_TEST_DROP");
  });

  it("inheritEnv: false starts from options.env only", () => {
    vi.stubEnv("CURSOR_API_KEY", "from-env");
    expect(buildCursorEnv({ inheritEnv: false, env: { PATH: "/bin" } })).toEqual({ PATH: "/bin" });
  });
});

describe("cursorPromptText", () => {
  it("strings, text blocks (joined by a blank line) and wire user messages", () => {
    expect(cursorPromptText("plain")).toBe("plain");
    expect(cursorPromptText([text("one"), text("two")])).toBe("one\n\ntwo");
    expect(cursorPromptText({ type: "user", message: { role: "user", content: "wired" } })).toBe("wired");
    expect(cursorPromptText({ type: "user", message: { role: "user", content: [text("a")] } })).toBe("a");
  });

  it("refuses images (and any other block) with UnsupportedFeatureError", () => {
    const attempt = () => cursorPromptText([text("look"), image(new Uint8Array([1, 2, 3]))]);
    expect(attempt).toThrow(UnsupportedFeatureError);
    expect(attempt).toThrow(/image prompt blocks.*cursor/);
    expect(() => cursorPromptText([{ type: "document" } as never])).toThrow(/document prompt blocks/);
  });
});
