/**
 * Temporary directories of the test environments.
 *
 * @module
 */

import { rm } from "node:fs/promises";

/**
 * A cleanup function that removes `dir` recursively the first time it is called and does nothing
 * after, so a test environment may be cleaned up by both its test and its server.
 *
 * @param dir - The directory to remove.
 * @returns The cleanup function.
 */
export function removeDirOnce(dir: string): () => Promise<void> {
  let cleaned = false;
  return async () => {
    if (cleaned) return;
    cleaned = true;
    // Retries: a CLI that was just killed may still be releasing files inside.
    await rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  };
}
