/**
 * The compat Codex entry writes its `codex exec` line with the backend's builder, in the official
 * SDK's layout: every flag in the order `@openai/codex-sdk` 0.163.0's `CodexExec.run()` pushes it
 * (node_modules/@openai/codex-sdk/dist/index.js), including the options the side-by-side test
 * (test/compat/codex-differential.test.ts) cannot drive through codex 0.169.0.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Codex as OfficialCodex } from "@openai/codex-sdk";
import { describe, expect, it } from "vitest";
import { execCommandArgs } from "../../../src/backends/codex/command.js";
import { flattenConfig } from "../../../src/backends/codex/config.js";
import { execTurnArgs } from "../../../src/compat/codex-sdk/exec-spec.js";
import { Codex as CompatCodex } from "../../../src/compat/codex-sdk/index.js";
import { InvalidOptionsError } from "../../../src/errors.js";

const THREAD = "01a2006c-d3d2-7562-819c-e668dc7cb903";

describe("compat Codex exec line (the backend's builder, official-sdk layout)", () => {
  it("every option, in the official SDK's order, on a new thread", () => {
    expect(
      execTurnArgs({
        config: { a: { b: 1, c: {} }, "odd key": "x y", list: [1, { k: "v" }] },
        configOverrides: ["raw=true"],
        baseUrl: "http://127.0.0.1:9/v1",
        thread: {
          model: "gpt-5.5",
          threadSource: "ci",
          sandboxMode: "workspace-write",
          workingDirectory: "/w",
          additionalDirectories: ["/a", "/b"],
          skipGitRepoCheck: true,
          modelReasoningEffort: "low",
          networkAccessEnabled: false,
          webSearchEnabled: true,
          approvalPolicy: "on-request",
        },
        threadId: null,
        outputSchemaFile: "/s.json",
        cyberAccessProgram: "standard",
        images: ["/i.png"],
      }),
    ).toEqual([
      "exec",
      "--experimental-json",
      "--config",
      "a.b=1",
      "--config",
      "a.c={}",
      "--config",
      'odd key="x y"',
      "--config",
      'list=[1, { k = "v" }]',
      "--config",
      "raw=true",
      "--config",
      'openai_base_url="http://127.0.0.1:9/v1"',
      "--model",
      "gpt-5.5",
      "--thread-source",
      "ci",
      "--sandbox",
      "workspace-write",
      "--cd",
      "/w",
      "--add-dir",
      "/a",
      "--add-dir",
      "/b",
      "--skip-git-repo-check",
      "--output-schema",
      "/s.json",
      "--cyber-access-program",
      "standard",
      "--config",
      'model_reasoning_effort="low"',
      "--config",
      "sandbox_workspace_write.network_access=false",
      "--config",
      'web_search="live"',
      "--config",
      'approval_policy="on-request"',
      "--image",
      "/i.png",
    ]);
  });

  it("the same argv as the official SDK writes, with the options a real codex would refuse (a stub CLI records it)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cas-codex-spec-"));
    try {
      const log = join(dir, "argv");
      const stub = join(dir, "codex");
      writeFileSync(
        stub,
        `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${log}'\ncat > /dev/null\n`,
      );
      chmodSync(stub, 0o755);
      const argv: string[][] = [];
      for (const Sdk of [OfficialCodex, CompatCodex]) {
        const codex = new Sdk({
          codexPathOverride: stub,
          env: { PATH: process.env.PATH ?? "" },
          config: { a: { b: 1, c: {} }, "odd key": "x y" },
          configOverrides: ["raw=true"],
          baseUrl: "http://127.0.0.1:9/v1",
        });
        const thread = codex.startThread({
          model: "gpt-5.5",
          threadSource: "ci",
          sandboxMode: "read-only",
          workingDirectory: dir,
          additionalDirectories: ["/a"],
          skipGitRepoCheck: true,
          modelReasoningEffort: "high",
          networkAccessEnabled: true,
          webSearchEnabled: false,
          approvalPolicy: "never",
        });
        // The stub writes no events: both SDKs end the turn with nothing in it.
        await thread.run(
          [
            { type: "text", text: "hi" },
            { type: "local_image", path: "/i.png" },
          ],
          { cyberAccessProgram: "daybreak_blue" },
        );
        argv.push(readFileSync(log, "utf8").trimEnd().split("\n"));
      }
      expect(argv[1]).toEqual(argv[0]);
      expect(argv[0]).toContain("--thread-source");
      expect(argv[0]).toContain("--cyber-access-program");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("resuming: no --thread-source; resume, the images, then the id after --", () => {
    const args = execTurnArgs({ thread: { threadSource: "ci" }, threadId: THREAD, images: ["/i.png"] });
    expect(args).toEqual(["exec", "--experimental-json", "resume", "--image", "/i.png", "--", THREAD]);
  });

  it("empty strings are left out as the official SDK leaves them (it tests for truth)", () => {
    expect(
      execTurnArgs({
        thread: { model: "", workingDirectory: "", sandboxMode: undefined },
        threadId: null,
        images: [],
      }),
    ).toEqual(["exec", "--experimental-json"]);
  });

  it("the backend layout of the same builder is unchanged: exec --json … -- -", () => {
    expect(execCommandArgs({ model: "m", images: ["/i.png"], config: [["k", "v"]], resume: THREAD })).toEqual(
      ["exec", "--json", "--model", "m", "--image=/i.png", "-c", 'k="v"', "resume", "--", THREAD, "-"],
    );
  });
});

describe("flattenConfig (one flattener for the exec and app-server paths)", () => {
  it("dotted keys as the official SDK joins them; undefined skipped", () => {
    expect(flattenConfig({ a: { b: { c: true }, d: undefined }, e: [1, "x"] })).toEqual([
      ["a.b.c", true],
      ["e", [1, "x"]],
    ]);
  });

  it.each([
    [{ a: null }, "config.a: cannot be null"],
    [{ a: Number.NaN }, "config.a: must be a finite number"],
    [{ a: [1, () => 1] }, "config.a[1]: unsupported function"],
    [{ "": 1 }, "config: keys must be non-empty strings"],
    [[1], "config: must be a plain object"],
  ])("refuses %o with InvalidOptionsError (%s), before anything is spawned", (config, message) => {
    expect(() => flattenConfig(config)).toThrow(InvalidOptionsError);
    expect(() => flattenConfig(config)).toThrow(message);
  });
});
