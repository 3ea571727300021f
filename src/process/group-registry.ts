/**
 * Process-group signalling, plus a registry of live child groups that are killed when this
 * process goes away. Children are spawned `detached` (their own group, so one signal reaches their
 * grandchildren too), which also means nothing kills them automatically when we die.
 */

/**
 * Sends `signal` to the whole process group led by `pid`.
 *
 * Returns false when the group no longer exists (ESRCH). On Windows, where POSIX groups do not
 * exist, only `pid` itself is signalled.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(process.platform === "win32" ? pid : -pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw err;
  }
}

const live = new Set<number>();
let exitHookInstalled = false;

/** Told about every group registered and forgotten (see {@link observeGroups}). */
export interface GroupObserver {
  added(pid: number): void;
  removed(pid: number): void;
}

const observers = new Set<GroupObserver>();

/**
 * Follows the live child groups of this process until the returned function is called: first every
 * group alive now (`added`, synchronously, before this returns), then each change. The exit hooks
 * above cannot run when this process is SIGKILLed; an out-of-process watchdog (the queue worker's)
 * uses this to learn which groups to kill in that case.
 */
export function observeGroups(observer: GroupObserver): () => void {
  for (const pid of live) observer.added(pid);
  observers.add(observer);
  return () => {
    observers.delete(observer);
  };
}

/** Signals after which Node would die without running 'exit' listeners. */
const FATAL_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** Synchronous clean-ups that run after the groups are killed when this process goes away. */
const exitCleanups = new Set<() => void>();

function killAllSync(): void {
  for (const pid of live) {
    try {
      signalGroup(pid, "SIGKILL");
    } catch {
      // Process is exiting; there is nobody left to report to, and other groups must still die.
    }
  }
  live.clear();
  for (const cleanup of exitCleanups) {
    try {
      cleanup();
    } catch {
      // As above: the others must still run.
    }
  }
  exitCleanups.clear();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", killAllSync);
}

/**
 * Runs `cleanup` (synchronous) when this process goes away as the live groups are killed — on exit,
 * or on a SIGINT/SIGTERM/SIGHUP the application does not handle while a group is live — for what
 * a child leaves behind (a directory made for it). Returns the function that drops it again.
 */
export function atHostExit(cleanup: () => void): () => void {
  installExitHook();
  // A clean-up registered before its child starts (or kept after it ended) still runs on a signal.
  installSignalHooks();
  exitCleanups.add(cleanup);
  return () => {
    if (exitCleanups.delete(cleanup)) releaseSignalHooksSoon();
  };
}

/** Signal listeners exist while there is something to clean up: a live group or a clean-up. */
function signalHooksNeeded(): boolean {
  return live.size > 0 || exitCleanups.size > 0;
}

function onFatalSignal(signal: NodeJS.Signals): void {
  // If the application handles this signal itself, it decides whether to exit (and may want to
  // shut its sessions down gracefully), so we stay out of the way.
  if (process.listenerCount(signal) > 1) return;
  killAllSync();
  uninstallSignalHooks();
  // Re-raise with the default disposition restored so the exit status still says "killed by signal".
  process.kill(process.pid, signal);
}

/**
 * How long the signal listeners outlive the last group or clean-up. Adding the first listener of a
 * signal starts a native signal watcher and removing the last one stops it (~0.2 ms each, per
 * signal, on a 2-vCPU VM): a host running one query after another would pay that twice per query.
 * Meanwhile nothing changes for the host: with nothing to clean up, {@link onFatalSignal} removes
 * itself and re-raises the signal, which is the default disposition.
 */
export const SIGNAL_HOOKS_LINGER_MS = 1000;

let signalHooksInstalled = false;
/** The pending removal of the signal listeners (unref'd: it never keeps the host alive). */
let releaseTimer: NodeJS.Timeout | undefined;

function installSignalHooks(): void {
  if (signalHooksInstalled) return;
  signalHooksInstalled = true;
  for (const sig of FATAL_SIGNALS) process.on(sig, onFatalSignal);
}

function uninstallSignalHooks(): void {
  if (releaseTimer !== undefined) clearTimeout(releaseTimer);
  releaseTimer = undefined;
  if (!signalHooksInstalled) return;
  signalHooksInstalled = false;
  for (const sig of FATAL_SIGNALS) process.removeListener(sig, onFatalSignal);
}

/**
 * Removes the signal listeners {@link SIGNAL_HOOKS_LINGER_MS} after nothing needs them any more,
 * unless something does again by then (the timer is not reset per group: it checks when it fires).
 */
function releaseSignalHooksSoon(): void {
  if (!signalHooksInstalled || signalHooksNeeded() || releaseTimer !== undefined) return;
  releaseTimer = setTimeout(onReleaseTimer, SIGNAL_HOOKS_LINGER_MS);
  releaseTimer.unref();
}

function onReleaseTimer(): void {
  releaseTimer = undefined;
  if (signalHooksNeeded()) return;
  uninstallSignalHooks();
}

/** Whether this module's signal listeners are installed now (for tests and diagnostics). */
export function signalHooksActive(): boolean {
  return signalHooksInstalled;
}

/**
 * Records a live child group so it is SIGKILLed if this process exits (normally, or through an
 * unhandled SIGINT/SIGTERM/SIGHUP) while the child still runs.
 */
export function registerGroup(pid: number): void {
  installExitHook();
  // Signal listeners change Node's default "die on signal" behaviour, so they only exist while
  // there is something to clean up (and up to SIGNAL_HOOKS_LINGER_MS after, re-raising the signal).
  installSignalHooks();
  live.add(pid);
  for (const observer of observers) observer.added(pid);
}

/** Forgets a group once its leader has exited and the group has been cleaned up. */
export function unregisterGroup(pid: number): void {
  if (!live.delete(pid)) return;
  releaseSignalHooksSoon();
  for (const observer of observers) observer.removed(pid);
}

/** Number of registered live groups (for tests and diagnostics). */
export function liveGroupCount(): number {
  return live.size;
}
