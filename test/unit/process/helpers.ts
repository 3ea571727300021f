import { fileURLToPath } from "node:url";
import { isAlive } from "../../lifecycle/support/processes.js";

export { isAlive };

/** Absolute path of a fixture program in test/fixtures/process/. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/process/${name}`, import.meta.url));
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
