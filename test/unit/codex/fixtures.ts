/**
 * Loading the codex 0.169.0 captures in test/fixtures/codex.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const DIR = join(import.meta.dirname, "..", "..", "fixtures", "codex");

/** The JSON lines of a capture. */
export function captureLines(name: string): Record<string, unknown>[] {
  return readFileSync(join(DIR, name), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** One line of appserver.jsonl. */
export interface AppServerLine {
  ms: number;
  dir: "meta" | "client->server" | "server->client" | "stderr";
  msg: Record<string, unknown>;
}

/** appserver.jsonl, split into its two processes (the second one resumes the thread). */
export function appServerCapture(): { first: AppServerLine[]; second: AppServerLine[] } {
  const lines = captureLines("appserver.jsonl") as unknown as AppServerLine[];
  const metas = lines.flatMap((l, i) => (l.dir === "meta" ? [i] : []));
  const secondStart = metas[1] ?? lines.length;
  return { first: lines.slice(0, secondStart), second: lines.slice(secondStart) };
}

/** The server → client lines of a capture part. */
export function fromServer(lines: AppServerLine[]): Record<string, unknown>[] {
  return lines.filter((l) => l.dir === "server->client").map((l) => l.msg);
}

/** The client → server lines of a capture part. */
export function fromClient(lines: AppServerLine[]): Record<string, unknown>[] {
  return lines.filter((l) => l.dir === "client->server").map((l) => l.msg);
}
