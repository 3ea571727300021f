import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
// The validators answer options beyond the plain ones from the options schema, loaded on every
// public path (backendFor, loadBackend); here, by importing it.
import "../../../src/options-schema.js";
import { buildClaudeEnv, resolveUser } from "../../../src/backends/claude/env.js";
import { claudeOptionIssues } from "../../../src/backends/claude/validate.js";
import { InvalidOptionsError } from "../../../src/errors.js";

const tmp = mkdtempSync(join(tmpdir(), "env-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("buildClaudeEnv", () => {
  const KEY = "CODE_AGENT_SDK_ENV_TEST";
  afterEach(() => {
    delete process.env[KEY];
  });

  it("inherits process.env and marks the caller as the TypeScript SDK", () => {
    process.env[KEY] = "inherited";
    const env = buildClaudeEnv({}, "9.9.9");
    expect(env[KEY]).toBe("inherited");
    expect(env.CLAUDE_CODE_ENTRYPOINT).toBe("sdk-ts");
    expect(env.CLAUDE_AGENT_SDK_VERSION).toBe("9.9.9");
    expect(env).not.toHaveProperty("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING");
  });

  it("options.env overrides, adds, and removes with undefined", () => {
    process.env[KEY] = "inherited";
    expect(buildClaudeEnv({ env: { [KEY]: "mine", EXTRA: "1" } }, "1.0.0")).toMatchObject({
      [KEY]: "mine",
      EXTRA: "1",
    });
    expect(buildClaudeEnv({ env: { [KEY]: undefined } }, "1.0.0")).not.toHaveProperty(KEY);
  });

  it("the SDK markers cannot be overridden by options.env", () => {
    const env = buildClaudeEnv({ env: { CLAUDE_CODE_ENTRYPOINT: "cli" } }, "1.0.0");
    expect(env.CLAUDE_CODE_ENTRYPOINT).toBe("sdk-ts");
  });

  it("file checkpointing is switched on by env when asked for", () => {
    expect(
      buildClaudeEnv({ enableFileCheckpointing: true }, "1.0.0").CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING,
    ).toBe("true");
  });

  it("holds only strings (spawn-ready)", () => {
    const env = buildClaudeEnv({ env: { GONE: undefined } }, "1.0.0");
    expect(Object.values(env).every((v) => typeof v === "string")).toBe(true);
  });
});

describe("resolveUser", () => {
  const passwd = join(tmp, "passwd");
  writeFileSync(
    passwd,
    [
      "# comment",
      "root:x:0:0:root:/root:/bin/bash",
      "builder:x:1001:1002:Builder,,,:/home/builder:/bin/sh",
      "broken:x::",
      "",
    ].join("\n"),
  );

  it("undefined means: keep the current user", () => {
    expect(resolveUser(undefined, passwd)).toBeUndefined();
  });

  it("a user name resolves to its uid and gid", () => {
    expect(resolveUser("builder", passwd)).toEqual({ uid: 1001, gid: 1002 });
    expect(resolveUser("root", passwd)).toEqual({ uid: 0, gid: 0 });
  });

  it("a numeric uid takes its gid from passwd; an unlisted uid without a gid is refused, never left with gid 0", () => {
    expect(resolveUser(1001, passwd)).toEqual({ uid: 1001, gid: 1002 });
    expect(resolveUser("1001", passwd)).toEqual({ uid: 1001, gid: 1002 });
    expect(() => resolveUser(4242, passwd)).toThrow(InvalidOptionsError);
    expect(() => resolveUser("4242", passwd)).toThrow(/uid 4242 is not in .*pass \{ uid: 4242, gid:/);
  });

  it("{ uid, gid } is taken as given, listed or not; ids out of range are InvalidOptionsError", () => {
    expect(resolveUser({ uid: 4242, gid: 4343 }, passwd)).toEqual({ uid: 4242, gid: 4343 });
    expect(resolveUser({ uid: 1001, gid: 7 }, passwd)).toEqual({ uid: 1001, gid: 7 });
    for (const bad of [
      { uid: -1, gid: 1 },
      { uid: 1, gid: 2 ** 31 },
      { uid: 1.5, gid: 1 },
      { uid: 1 } as unknown as { uid: number; gid: number },
      { uid: 1, gid: 10n } as unknown as { uid: number; gid: number },
    ]) {
      expect(() => resolveUser(bad, passwd)).toThrow(InvalidOptionsError);
    }
    expect(() => resolveUser(2 ** 31, passwd)).toThrow(InvalidOptionsError);
  });

  it("validation: an unlisted uid alone fails up front; { uid, gid } passes the schema, a partial object does not", () => {
    expect(claudeOptionIssues({ user: 4242 }).join("\n")).toMatch(/uid 4242 is not in/);
    expect(claudeOptionIssues({ user: { uid: 4242, gid: 4343 } })).toEqual([]);
    expect(claudeOptionIssues({ user: { uid: 4242 } }).length).toBeGreaterThan(0);
  });

  it("an unknown name is an InvalidOptionsError naming it", () => {
    expect(() => resolveUser("nobody-here", passwd)).toThrow(InvalidOptionsError);
    expect(() => resolveUser("nobody-here", passwd)).toThrow(/user: no Unix user named 'nobody-here'/);
    expect(() => resolveUser("broken", passwd)).toThrow(InvalidOptionsError);
  });

  it("without a readable passwd file, names and bare uids fail; { uid, gid } still works", () => {
    const missing = join(tmp, "no-passwd");
    expect(() => resolveUser("builder", missing)).toThrow(/unreadable/);
    expect(() => resolveUser(7, missing)).toThrow(/uid 7 is not in .*unreadable/);
    expect(resolveUser({ uid: 7, gid: 8 }, missing)).toEqual({ uid: 7, gid: 8 });
  });

  it("reads the real /etc/passwd by default", () => {
    if (process.platform === "win32") return;
    expect(resolveUser("root")).toEqual({ uid: 0, gid: 0 });
  });
});
