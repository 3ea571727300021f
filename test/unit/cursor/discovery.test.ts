import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  CURSOR_CLI_PATH_ENV,
  CURSOR_SKIP_VERSION_CHECK_ENV,
  checkCursorVersion,
  findCursorCli,
  parseCursorVersion,
} from "../../../src/backends/cursor/discovery.js";
import { CliNotFoundError } from "../../../src/errors.js";

const FAKE = fileURLToPath(new URL("../../fixtures/cursor/fake-cursor-agent.mjs", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "cursor-discovery-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function executable(dir: string, name: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, "#!/bin/sh\necho 2025.11.25-d5b3271\n");
  chmodSync(path, mode);
  return path;
}

describe("findCursorCli", () => {
  it("prefers cursor-agent anywhere over agent anywhere", () => {
    const home = join(tmp, "h1");
    const bin = join(tmp, "b1");
    executable(bin, "agent");
    const preferred = executable(join(home, ".local", "bin"), "cursor-agent");
    expect(findCursorCli({ env: { PATH: bin, HOME: home } })).toBe(preferred);
  });

  it("finds cursor-agent on PATH before ~/.local/bin", () => {
    const home = join(tmp, "h2");
    const bin = join(tmp, "b2");
    executable(join(home, ".local", "bin"), "cursor-agent");
    const onPath = executable(bin, "cursor-agent");
    expect(findCursorCli({ env: { PATH: bin, HOME: home } })).toBe(onPath);
  });

  it("falls back to agent (the other name the installer creates)", () => {
    const home = join(tmp, "h3");
    const agent = executable(join(home, ".local", "bin"), "agent");
    expect(findCursorCli({ env: { PATH: join(tmp, "empty"), HOME: home } })).toBe(agent);
  });

  it("skips files that are not executable", () => {
    const home = join(tmp, "h4");
    const bin = join(tmp, "b4");
    executable(bin, "cursor-agent", 0o644);
    const agent = executable(bin, "agent");
    expect(findCursorCli({ env: { PATH: bin, HOME: home } })).toBe(agent);
  });

  it("an explicit cliPath must work: no other place is searched", () => {
    const home = join(tmp, "h5");
    executable(join(home, ".local", "bin"), "cursor-agent");
    expect(findCursorCli({ cliPath: FAKE })).toBe(FAKE);
    let error: unknown;
    try {
      findCursorCli({ cliPath: "/nonexistent/cursor-agent", env: { HOME: home } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect((error as CliNotFoundError).searched).toEqual(["/nonexistent/cursor-agent"]);
    expect((error as CliNotFoundError).cli).toBe("cursor-agent");
  });

  it(`${CURSOR_CLI_PATH_ENV} comes next, and must work too`, () => {
    expect(findCursorCli({ env: { [CURSOR_CLI_PATH_ENV]: FAKE, PATH: "" } })).toBe(FAKE);
    expect(() => findCursorCli({ env: { [CURSOR_CLI_PATH_ENV]: "/nope" } })).toThrow(CliNotFoundError);
  });

  it("not found: lists every place searched and how to install", () => {
    const home = join(tmp, "h6");
    // The CLI's HOME, then this process's own (where the user installed it).
    const realHome = join(tmp, "h6-real");
    vi.stubEnv("HOME", realHome);
    let error: unknown;
    try {
      findCursorCli({ env: { PATH: "/cas-none-1:/cas-none-2", HOME: home } });
    } catch (e) {
      error = e;
    } finally {
      vi.unstubAllEnvs();
    }
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect((error as CliNotFoundError).searched).toEqual([
      "/cas-none-1/cursor-agent",
      "/cas-none-2/cursor-agent",
      join(home, ".local", "bin", "cursor-agent"),
      join(realHome, ".local", "bin", "cursor-agent"),
      "/cas-none-1/agent",
      "/cas-none-2/agent",
      join(home, ".local", "bin", "agent"),
      join(realHome, ".local", "bin", "agent"),
    ]);
    expect((error as Error).message).toContain("cursor.com/install");
  });
});

describe("checkCursorVersion", () => {
  it("reads the dated build version", async () => {
    expect(await checkCursorVersion(FAKE, process.env)).toEqual({ version: "2025.11.25-d5b3271" });
  });

  it("never hangs: a CLI that does not answer is killed after the timeout and reported", async () => {
    const started = Date.now();
    const check = await checkCursorVersion(FAKE, { ...process.env, FAKE_CURSOR_VERSION_HANG: "1" }, 300);
    expect(check.version).toBeUndefined();
    expect(check.warning).toMatch(/no answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a failing binary is a warning, not an error", async () => {
    const broken = join(tmp, "broken");
    writeFileSync(broken, "#!/bin/sh\necho oops >&2\nexit 3\n");
    chmodSync(broken, 0o755);
    const check = await checkCursorVersion(broken, process.env);
    expect(check).toMatchObject({ version: undefined, warning: expect.stringContaining(broken) });
  });

  it(`is skipped when ${CURSOR_SKIP_VERSION_CHECK_ENV} is set`, async () => {
    expect(await checkCursorVersion("/nonexistent", { [CURSOR_SKIP_VERSION_CHECK_ENV]: "1" })).toEqual({
      version: undefined,
    });
  });

  it("parseCursorVersion accepts dated builds and semver", () => {
    expect(parseCursorVersion("2026.01.28-fd13201\n")).toBe("2026.01.28-fd13201");
    expect(parseCursorVersion("cursor-agent 1.2.3")).toBe("1.2.3");
    expect(parseCursorVersion("nothing")).toBeUndefined();
  });
});
