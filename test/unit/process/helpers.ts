import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of a fixture program in test/fixtures/process/. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/process/${name}`, import.meta.url));
}

/**
 * Whether `pid` is a running process. A zombie counts as dead: in containers whose PID 1 does not
 * reap orphans, a killed grandchild can stay a zombie forever.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw err;
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 3, after the parenthesised command name (which may itself contain spaces).
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Waits until `pid` is gone. Used only for processes we are not the parent of (grandchildren), so
 * no exit event exists to wait on: the kernel reparents them and we can only poll, boundedly.
 */
export async function waitUntilDead(pid: number, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** Kills a pid if still alive (test cleanup for processes that escaped on purpose). */
export function killQuietly(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone, which is what we want.
  }
}

/** Drains an async iterable into an array. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
