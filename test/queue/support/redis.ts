/**
 * A throwaway redis-server for the queue tests: loopback only, a free port, a temp directory,
 * stopped (and its directory removed) on dispose. Optionally append-only with fsync on every write,
 * so a restart loses nothing.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";

/** The redis-server binary, or undefined when it is not installed. */
export const REDIS_SERVER: string | undefined = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

/** Why the queue suites skip when they do. */
export const NO_REDIS_REASON =
  "redis-server is not installed (Debian: apt-get install -y redis-server; .ci/run installs it)";

export interface TestRedis extends AsyncDisposable {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM: it writes its append-only file) and starts it again on the same port. */
  restart(): Promise<void>;
  /** Stops the server. */
  stop(): Promise<void>;
  /** SIGKILLs the server (gone for good: nothing written on the way out, no restart). */
  kill(): Promise<void>;
  /**
   * SIGSTOPs the server: connections are still accepted (by the kernel) and data taken in, but
   * nothing is answered. Stopping or disposing continues it first.
   */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Starts redis-server; resolves once it accepts connections. */
export async function startRedis(options: { appendOnly?: boolean } = {}): Promise<TestRedis> {
  if (!REDIS_SERVER) throw new Error(NO_REDIS_REASON);
  const binary = REDIS_SERVER;
  const dir = mkdtempSync(join(tmpdir(), "cas-redis-"));
  const port = await freePort();
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--daemonize",
    "no",
    "--protected-mode",
    "yes",
    "--appendonly",
    options.appendOnly ? "yes" : "no",
    "--appendfsync",
    "always",
  ];
  let proc: ChildProcess | undefined;

  const launch = async () => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    proc = child;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) {
          child.stdout?.off("data", onData);
          child.off("exit", onExit);
          child.stdout?.resume();
          resolve();
        }
      };
      const onExit = (code: number | null) =>
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`));
      child.stdout?.on("data", onData);
      child.stderr?.on("data", (c: Buffer) => {
        output += c.toString();
      });
      child.once("exit", onExit);
    });
  };

  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    const child = proc;
    proc = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGCONT"); // a paused server handles no SIGTERM until it is continued
    child.kill(signal);
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      await stop();
      await launch();
    },
    stop: () => stop(),
    kill: () => stop("SIGKILL"),
    pause() {
      proc?.kill("SIGSTOP");
    },
    resume() {
      proc?.kill("SIGCONT");
    },
    async [Symbol.asyncDispose]() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A redis-server for the `describe` block this is called in (started before its tests, stopped
 * after them) and a plain connection to it; read `server` and `raw` inside the tests.
 */
export function redisForSuite(): { readonly server: TestRedis; readonly raw: Redis } {
  let server: TestRedis | undefined;
  let raw: Redis | undefined;
  beforeAll(async () => {
    server = await startRedis();
    raw = new Redis(server.url);
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.[Symbol.asyncDispose]();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("redisForSuite: read inside a test, after beforeAll");
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get raw() {
      return started(raw);
    },
  };
}
