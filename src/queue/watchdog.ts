/**
 * Makes a worker's CLI processes die with it. The CLIs run in process groups of their own (so one
 * signal reaches their tool subprocesses too), and the SDK kills those groups from exit and signal
 * hooks — which never run when the worker is SIGKILLed or OOM-killed. Closing the CLI's stdin is
 * not enough either: Claude Code finishes the turn it is in before it exits on EOF.
 *
 * So each worker starts one small watchdog process, in a group of its own, and tells it over a pipe
 * which CLI groups are alive. The pipe's write end exists only in the worker: when the worker dies
 * for any reason, the kernel closes it, the watchdog reads EOF and SIGKILLs every group it was told
 * about. A worker that closes normally says `bye` first, and the watchdog exits without killing.
 * Plain Node, no native code, any POSIX system.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { observeGroups } from "../process/group-registry.js";

/** The watchdog itself: reads `+pid` / `-pid` / `bye` lines; on EOF without `bye`, kills the groups. */
const WATCHDOG_SCRIPT = `
const groups = new Set();
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
  /** The watchdog's pid (for tests and diagnostics). */
  readonly pid: number | undefined;
  stop(): void;
}

/**
 * Starts the watchdog and reports every CLI group this process registers from now on. Returns
 * `undefined` on Windows, where process groups (and this failure mode) look different.
 */
export function startWatchdog(onError: (error: Error) => void): Watchdog | undefined {
  if (process.platform === "win32") return undefined;
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // the watchdog needs no loaders or inspectors of the host
  const child: ChildProcess = spawn(process.execPath, ["-e", WATCHDOG_SCRIPT], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
    env,
  });
  child.on("error", onError);
  // Neither the watchdog nor its pipe keeps the host alive.
  child.unref();
  const stdin = child.stdin as (Socket & NodeJS.WritableStream) | null;
  stdin?.unref?.();
  stdin?.on("error", onError);
  const send = (line: string) => {
    if (stdin && !stdin.destroyed && !stdin.writableEnded) stdin.write(`${line}\n`);
  };
  const unobserve = observeGroups({ added: (pid) => send(`+${pid}`), removed: (pid) => send(`-${pid}`) });
  let stopped = false;
  return {
    pid: child.pid,
    stop() {
      if (stopped) return;
      stopped = true;
      unobserve();
      send("bye");
      stdin?.end();
    },
  };
}
