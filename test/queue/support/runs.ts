/**
 * Helpers shared by the queue suites: fresh queue names, scratch directories, background readers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../../../src/index.js";
import type { AgentRun } from "../../../src/queue/index.js";

let queueCount = 0;
/** A fresh queue name per test, so tests sharing one Redis never see each other's jobs. */
export const freshQueue = () => `q${process.pid}-${++queueCount}`;

/** A scratch directory removed on dispose. */
export function scratch(): { dir: string } & Disposable {
  const dir = mkdtempSync(join(tmpdir(), "cas-queue-"));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Reads a run's messages in the background; `seen(pred)` resolves when one matches. */
export function follow(run: AgentRun) {
  const messages: Message[] = [];
  const waiters: { pred: (m: Message) => boolean; resolve: () => void }[] = [];
  const done = (async () => {
    for await (const m of run) {
      messages.push(m);
      for (const w of waiters.filter((w) => w.pred(m))) w.resolve();
    }
  })();
  done.catch(() => {});
  return {
    messages,
    done,
    seen: (pred: (m: Message) => boolean) =>
      messages.some(pred)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ pred, resolve })),
  };
}

export const isAssistantText = (text: string) => (m: Message) =>
  m.type === "assistant" && m.content.some((b) => b.type === "text" && b.text.includes(text));
