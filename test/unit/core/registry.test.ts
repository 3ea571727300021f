/**
 * Backends load on first use: `getBackend` answers at once, `loadBackend` (and every session
 * start) brings in the implementation.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CURSOR_CAPABILITIES } from "../../../src/backends/capabilities.js";
import {
  AgentSdkError,
  CliNotFoundError,
  getBackend,
  InvalidOptionsError,
  loadBackend,
  preloadWhenIdle,
  UnsupportedOptionsError,
} from "../../../src/index.js";

describe("backend registry", () => {
  it("knows a backend's name and capabilities before it is loaded, and validates once it is", async () => {
    const lazy = getBackend("cursor");
    expect(lazy.name).toBe("cursor");
    expect(lazy.capabilities).toBe(CURSOR_CAPABILITIES);
    expect(() => lazy.validateOptions({})).toThrow(AgentSdkError);
    expect(() => lazy.validateOptions({})).toThrow(/await loadBackend\("cursor"\)/);

    const backend = await loadBackend("cursor");
    expect(await loadBackend("cursor")).toBe(backend);
    expect(getBackend("cursor")).toBe(backend);
    expect(() => lazy.validateOptions({ systemPrompt: "x" })).toThrow(UnsupportedOptionsError);
    expect(() => backend.validateOptions({ maxTurns: 0 })).toThrow(InvalidOptionsError);
  });

  it("opens a session through a backend that was not loaded yet", async () => {
    const lazy = getBackend("acp");
    expect(lazy.constructor.name).toBe("LazyBackend");
    await expect(
      lazy.openSession({
        options: { backend: "acp", acp: { command: "/nonexistent/agent" } },
        oneShot: true,
        initialPrompt: "hi",
      }),
    ).rejects.toBeInstanceOf(CliNotFoundError);
    expect(getBackend("acp")).not.toBe(lazy);
  });

  it("rejects an unknown backend", async () => {
    expect(() => getBackend("nope" as never)).toThrow(InvalidOptionsError);
    await expect(loadBackend("nope" as never)).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});

/**
 * Importing the package loads nothing and schedules nothing; `preloadWhenIdle()` asks for Claude,
 * then Codex (or the backends it is given) to load in the background once the host's event loop
 * comes round, but only in a host that stays up: a script that asks and ends exits without loading
 * anything. Each case runs in its own Node process, as a host would.
 */
describe("idle preload, when asked for", () => {
  const ROOT = join(import.meta.dirname, "..", "..", "..");

  /** Runs `script` as a host; resolves with its stdout once it exited 0 with nothing on stderr. */
  function host(script: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--unhandled-rejections=strict", "--import", "tsx", "--input-type=module", "-e", script],
        { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      let err = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
      });
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        err += d;
      });
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 && err === "" ? resolve(out.trim()) : reject(new Error(`host exited ${code}: ${err}`)),
      );
    });
  }

  /** Stays up until `expected` backends are loaded or the loop came round 200 times after both loaded. */
  const stayUpAndReport = `
       const keep = setInterval(() => {}, 1000);
       await import("./src/backends/claude/backend.ts");
       await import("./src/backends/codex/backend.ts");
       for (let i = 0; i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 0));
       clearInterval(keep);
       console.log(sdk.getBackend("claude").constructor.name, sdk.getBackend("codex").constructor.name);`;

  it("a host that stays up after importing has nothing loaded it did not ask for", async () => {
    const out = await host(`const sdk = await import("./src/index.ts");${stayUpAndReport}`);
    expect(out).toBe("LazyBackend LazyBackend");
  });

  it("a host that asks and ends right after exits without loading the backend", async () => {
    const out = await host(
      `const sdk = await import("./src/index.ts");
       sdk.preloadWhenIdle();
       process.on("exit", () => console.log(sdk.getBackend("claude").constructor.name));`,
    );
    expect(out).toBe("LazyBackend");
  });

  it("a host that asks and stays up has Claude, then Codex loaded", async () => {
    // The host stays up on its own interval until both are there (or 20 s have passed), noting the
    // order in which they arrive.
    const out = await host(
      `const sdk = await import("./src/index.ts");
       sdk.preloadWhenIdle();
       const started = Date.now();
       const seen = [];
       const poll = setInterval(() => {
         for (const kind of ["claude", "codex", "acp", "cursor"]) {
           if (!seen.includes(kind) && sdk.getBackend(kind).constructor.name !== "LazyBackend") seen.push(kind);
         }
         if (seen.length >= 2 || Date.now() - started > 20000) {
           clearInterval(poll);
           console.log(seen.join(" "));
         }
       }, 1);`,
    );
    expect(out).toBe("claude codex");
  });

  it("preloadWhenIdle(kinds) loads those; without kinds CODE_AGENT_SDK_PRELOAD names them, or 0 for none", async () => {
    const { CODE_AGENT_SDK_PRELOAD: _, ...inherited } = process.env;
    const asking = (call: string, value?: string) =>
      host(
        `const sdk = await import("./src/index.ts");
         sdk.${call};${stayUpAndReport}`,
        value === undefined ? inherited : { ...inherited, CODE_AGENT_SDK_PRELOAD: value },
      );
    expect(await asking('preloadWhenIdle(["codex"])')).toBe("LazyBackend CodexBackend");
    expect(await asking("preloadWhenIdle()")).toBe("ClaudeBackend CodexBackend");
    expect(await asking("preloadWhenIdle()", "codex")).toBe("LazyBackend CodexBackend");
    expect(await asking("preloadWhenIdle()", "claude")).toBe("ClaudeBackend LazyBackend");
    expect(await asking("preloadWhenIdle()", " codex , claude ")).toBe("ClaudeBackend CodexBackend");
    expect(await asking("preloadWhenIdle()", "0")).toBe("LazyBackend LazyBackend");
    await expect(asking("preloadWhenIdle()", "codx")).rejects.toThrow(
      /CODE_AGENT_SDK_PRELOAD="codx" is neither 0 nor a list of backends/,
    );
    await expect(asking("preloadWhenIdle()", "claude,codx")).rejects.toThrow(/nothing is preloaded/);
  });

  it("preloadWhenIdle rejects an unknown backend at once", () => {
    expect(() => preloadWhenIdle(["nope" as never])).toThrow(InvalidOptionsError);
  });

  it("a query for another backend first: the default one is not loaded", async () => {
    const out = await host(
      `const sdk = await import("./src/index.ts");
       sdk.preloadWhenIdle();
       await sdk.loadBackend("codex");
       await new Promise((resolve) => setTimeout(resolve, 0));
       await new Promise((resolve) => setTimeout(resolve, 0));
       console.log(sdk.getBackend("claude").constructor.name);`,
    );
    expect(out).toBe("LazyBackend");
  });
});
