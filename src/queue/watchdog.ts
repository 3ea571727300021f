/**
 * Makes a worker's CLI processes die with it. The CLIs run in process groups of their own (so one
 * signal reaches their tool subprocesses too), and the SDK kills those groups from exit and signal
 * hooks — which never run when the worker is SIGKILLed or OOM-killed. Closing the CLI's stdin is
 * not enough either: Claude Code finishes the turn it is in before it exits on EOF.
 *
 * So each worker starts one small watchdog process, in a group of its own, and tells it which CLI
 * groups are alive: those alive when it starts in its argv (so no moment exists when it runs but
 * does not know them), later ones over a pipe. The pipe's write end exists only in the worker: when the worker dies
 * for any reason, the kernel closes it, the watchdog reads EOF and SIGKILLs every group it was told
 * about. A worker that closes normally says `bye` first, and the watchdog exits without killing.
 * Plain Node, no native code, any POSIX system.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { observeGroups } from "../process/group-registry.js";
import { QueueWatchdogError } from "./errors.js";

/**
 * The watchdog itself: starts with the groups in its arguments, reads `+pid` / `-pid` / `bye` lines;
 * on EOF without `bye`, kills the groups.
 */
const WATCHDOG_SCRIPT = `
const groups = new Set(process.argv.slice(1).map(Number));
let bye = false;
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let i = pending.indexOf("\\n"); i >= 0; i = pending.indexOf("\\n")) {
    const line = pending.slice(0, i);
    pending = pending.slice(i + 1);
    if (line === "bye") bye = true;
    else if (line[0] === "+") groups.add(Number(line.slice(1)));
    else if (line[0] === "-") groups.delete(Number(line.slice(1)));
  }
});
process.stdin.on("end", () => {
  if (!bye) for (const pid of groups) { try { process.kill(-pid, "SIGKILL"); } catch {} }
  process.exit(0);
});
for (const s of ["SIGINT", "SIGHUP", "SIGTERM"]) process.on(s, () => {});
`;

/** A running watchdog; {@link stop} ends it without killing anything. */
export interface Watchdog {
  /** The pid of the watchdog running now (for tests and diagnostics); a new one after a restart. */
  readonly pid: number | undefined;
  stop(): void;
}

/** Restarts allowed within {@link RESTART_WINDOW_MS}; past that the worker goes on without one. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

/**
 * Starts the watchdog and reports every CLI group this process registers from now on. Returns
 * `undefined` on Windows, where process groups (and this failure mode) look different.
 *
 * The watchdog is watched in turn: one that dies while the worker lives (killed by an operator, an
 * OOM killer, a `kill -9` on the process group's neighbours) would leave the CLIs of a later
 * SIGKILLed worker running. So it is started again at once with every group alive in its argv, and the
 * death is reported to `onError` as {@link QueueWatchdogError}; after {@link MAX_RESTARTS} deaths
 * within a minute it is not restarted any more (reported as such).
 */
export function startWatchdog(onError: (error: Error) => void): Watchdog | undefined {
  if (process.platform === "win32") return undefined;
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // the watchdog needs no loaders or inspectors of the host
  const groups = new Set<number>();
  const deaths: number[] = [];
  let stopped = false;
  let child: ChildProcess | undefined;
  let stdin: (Socket & NodeJS.WritableStream) | null = null;

  const send = (line: string) => {
    if (stdin && !stdin.destroyed && !stdin.writableEnded) stdin.write(`${line}\n`);
  };
  const launch = () => {
    const current = spawn(process.execPath, ["-e", WATCHDOG_SCRIPT, ...[...groups].map(String)], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env,
    });
    child = current;
    current.on("error", onError);
    // Neither the watchdog nor its pipe keeps the host alive.
    current.unref();
    stdin = current.stdin as (Socket & NodeJS.WritableStream) | null;
    stdin?.unref?.();
    // A write to a watchdog that just died fails with EPIPE; its exit is what gets reported.
    stdin?.on("error", () => {});
    current.once("exit", (code, signal) => {
      if (stopped || child !== current) return;
      const now = performance.now();
      while (deaths.length > 0 && now - deaths[0]! > RESTART_WINDOW_MS) deaths.shift();
      deaths.push(now);
      const restart = deaths.length <= MAX_RESTARTS;
      onError(new QueueWatchdogError(current.pid, code, signal, restart));
      if (!restart) {
        child = undefined;
        stdin = null;
        return;
      }
      launch();
    });
  };

  // Before the first launch: the groups alive now are reported at once (and go into its argv).
  const unobserve = observeGroups({
    added: (pid) => {
      groups.add(pid);
      send(`+${pid}`);
    },
    removed: (pid) => {
      groups.delete(pid);
      send(`-${pid}`);
    },
  });
  launch();
  return {
    get pid() {
      return child?.pid;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      unobserve();
      send("bye");
      stdin?.end();
    },
  };
}
