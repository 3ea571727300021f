/**
 * One ACP client-fs host scenario, run as its own Node process (by client-fs-host.test.ts) with
 * `--unhandled-rejections=strict`: it prints one JSON line `{ report }` and must then exit 0 on its
 * own. What keeps it from printing or from exiting is the finding.
 *
 * Usage: node --unhandled-rejections=strict --import tsx client-fs-host.mts <fifo | memory [files] [MiB] | terminal-at-exit>
 */
import { execFileSync } from "node:child_process";
import { pbkdf2 } from "node:crypto";
import { lookup } from "node:dns/promises";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Terminals } from "../../../../src/backends/acp/terminals.js";
import { Workspace } from "../../../../src/backends/acp/workspace.js";

function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "served",
    (error: unknown) => `refused ${(error as { code?: unknown }).code}`,
  );
}

/** Four reads and four writes of FIFOs nobody opens the other end of, then the host's own async work. */
async function fifo(root: string): Promise<unknown> {
  const ws = new Workspace(root, 1024 * 1024);
  for (let i = 0; i < 4; i++) execFileSync("mkfifo", [join(root, `fifo-${i}`)]);
  const reads = [0, 1, 2, 3].map((i) => outcome(ws.readTextFile({ path: join(root, `fifo-${i}`) })));
  const writes = [0, 1, 2, 3].map((i) =>
    outcome(ws.writeTextFile({ path: join(root, `fifo-${i}`), content: "x" })),
  );
  const started = performance.now();
  // libuv's pool (4 threads) serves these: they complete only if no read or write holds a thread.
  await new Promise<void>((resolve, reject) =>
    pbkdf2("secret", "salt", 1000, 32, "sha256", (error) => (error ? reject(error) : resolve())),
  );
  await readFile(new URL(import.meta.url));
  await lookup("localhost");
  const hostMs = Math.round(performance.now() - started);
  return { reads: await Promise.all(reads), writes: await Promise.all(writes), hostMs };
}

/** Concurrent reads of files at the whole-file limit; the peak RSS over the baseline. */
async function memory(root: string): Promise<unknown> {
  const size = FILE_MIB * 1024 * 1024;
  for (let i = 0; i < FILES; i++) writeFileSync(join(root, `f${i}.txt`), Buffer.alloc(size, 97 + (i % 26)));
  const ws = new Workspace(root, size);
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const sampler = setInterval(sample, 1);
  const lengths = await Promise.all(
    Array.from({ length: FILES }, (_, i) =>
      ws.readTextFile({ path: join(root, `f${i}.txt`) }).then((text) => {
        sample();
        return text.length;
      }),
    ),
  );
  clearInterval(sampler);
  return {
    lengths,
    peakRssOverBaselineMiB: Math.round((peak - baseline) / 1024 / 1024),
    budgetPeakMiB: Math.round((ws.peakReadBytes ?? 0) / 1024 / 1024),
  };
}

/** The memory scenario's files: how many, and the size of each in MiB (also the whole-file limit). */
const FILES = Number(process.argv[3] ?? 60);
const FILE_MIB = Number(process.argv[4] ?? 8);

/**
 * A terminal whose command left a setsid grandchild, and a host that exits without closing it:
 * reports the grandchild's pid, then exits (the parent checks that the grandchild went with it).
 */
async function terminalAtExit(root: string): Promise<unknown> {
  const terminals = new Terminals(new Workspace(root, 1024), { PATH: process.env.PATH ?? "/usr/bin:/bin" });
  await terminals.create({ command: "setsid sh -c 'echo $$ > sleeper.pid; exec sleep 1000' & sleep 1000" });
  const file = join(root, "sleeper.pid");
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text.trim() !== "") return { sleeper: Number(text.trim()), exit: true };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const scenarios: Record<string, (root: string) => Promise<unknown>> = {
  fifo,
  memory,
  "terminal-at-exit": terminalAtExit,
};
const name = process.argv[2] ?? "";
const run = scenarios[name];
if (!run) throw new Error(`unknown scenario ${name}`);
const root = realpathSync(mkdtempSync(join(tmpdir(), "cas-acp-fs-host-")));
mkdirSync(join(root, "sub"));
try {
  const report = (await run(root)) as { exit?: boolean };
  process.stdout.write(`${JSON.stringify({ report })}\n`);
  if (report.exit) {
    rmSync(root, { recursive: true, force: true });
    process.exit(0);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
