/**
 * A resume from a session store for another Unix user (`options.user`, a root host): a process of
 * that user racing to swap every entry of the temporary directory for a symlink to a root-owned
 * file or directory never gets root to change that file's ownership; the directory goes with the
 * session, and with the host. Real users (useradd), real symlinks; skipped unless root.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySessionStore } from "../../../src/backends/claude/index.js";
import { projectKeyOf } from "../../../src/backends/claude/sessions/store-keys.js";
import { prepareStoreResume } from "../../../src/backends/claude/store-resume.js";

const SESSION = "0b0c6f4e-5a44-4e51-9a43-3f1d7f0c5a11";
const RUNS = 20;
const SUBAGENTS = 40;

function hasUseradd(): boolean {
  try {
    execFileSync("sh", ["-c", "command -v useradd && command -v userdel"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const asRoot = process.getuid?.() === 0 && hasUseradd();

/**
 * For the describe it is called in: a real user (`useradd`, removed after), a scratch directory
 * root owns that the user may read (0755), and `TMPDIR` restored after. Read the fields in tests.
 */
function withUnixUser(prefix: string): { name: string; uid: number; gid: number; base: string } {
  const user = { name: `${prefix}${process.pid}`, uid: -1, gid: -1, base: "" };
  const savedTmp = process.env.TMPDIR;
  beforeAll(() => {
    execFileSync("useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", user.name], {
      stdio: "ignore",
    });
    user.uid = Number(execFileSync("id", ["-u", user.name], { encoding: "utf8" }).trim());
    user.gid = Number(execFileSync("id", ["-g", user.name], { encoding: "utf8" }).trim());
    user.base = mkdtempSync(join(tmpdir(), `cas-${prefix}-`));
    chmodSync(user.base, 0o755);
  });
  afterAll(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    if (user.base !== "") rmSync(user.base, { recursive: true, force: true });
    try {
      execFileSync("userdel", [user.name], { stdio: "ignore" });
    } catch {
      // Already gone.
    }
  });
  return user;
}

/**
 * Runs as the target user: finds `claude-resume-*` directories in `TMP` and, as soon as it can
 * read one, replaces every entry it finds (depth first) by a symlink to a root-owned file (for
 * files) or directory (for directories; the real one is moved aside). A directory where a sweep
 * finds nothing left to swap is reported (`done <dir>`) and left alone. Prints its count of swaps
 * on SIGTERM.
 */
const RACER = `
const fs = require("node:fs");
const path = require("node:path");
const [tmp, targetFile, targetDir] = process.argv.slice(1);
let swaps = 0;
const done = new Set();
process.on("SIGTERM", () => { process.stdout.write(String(swaps) + "\\n", () => process.exit(0)); });
function swapAll(dir) {
  let count = 0;
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return -1; }
  for (const entry of entries) {
    if (entry.name.includes(".moved-")) continue;
    const p = path.join(dir, entry.name);
    try {
      if (entry.isDirectory()) {
        swapAll(p);
        fs.renameSync(p, p + ".moved-" + swaps);
        fs.symlinkSync(targetDir, p);
      } else if (!entry.isSymbolicLink()) {
        fs.unlinkSync(p);
        fs.symlinkSync(targetFile, p);
      } else continue;
      swaps++;
      count++;
    } catch {}
  }
  return count;
}
function tick() {
  const until = Date.now() + 50;
  while (Date.now() < until) {
    let names = [];
    try { names = fs.readdirSync(tmp); } catch {}
    for (const name of names) {
      const dir = path.join(tmp, name);
      if (!name.startsWith("claude-resume-") || done.has(dir)) continue;
      if (swapAll(dir) === 0) {
        done.add(dir);
        process.stdout.write("done " + dir + "\\n");
      }
    }
  }
  setImmediate(tick);
}
process.stdout.write("ready\\n");
tick();
`;

describe.skipIf(!asRoot)("resume from a store for another user (root host)", () => {
  const user = withUnixUser("casrace");

  /** A scratch directory root owns, that the user may read (0755). */
  function rootDir(label: string): string {
    const dir = join(user.base, label);
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    return dir;
  }

  async function storeWithSession(cwd: string): Promise<InMemorySessionStore> {
    const store = new InMemorySessionStore();
    const projectKey = projectKeyOf(cwd);
    await store.append({ projectKey, sessionId: SESSION }, [{ type: "user", uuid: "u1" }]);
    for (let i = 0; i < SUBAGENTS; i++) {
      await store.append({ projectKey, sessionId: SESSION, subpath: `subagents/agent-a${i}` }, [
        { type: "agent_metadata", agentType: "general-purpose" },
        { type: "user", uuid: `s${i}` },
      ]);
    }
    return store;
  }

  it(`a racing process of the user never gets root to chown a root file through a symlink (${RUNS} runs)`, async () => {
    const tmp = rootDir("tmp");
    const config = rootDir("config");
    const cwd = rootDir("cwd");
    writeFileSync(join(config, ".credentials.json"), JSON.stringify({ claudeAiOauth: { accessToken: "a" } }));
    writeFileSync(join(config, "settings.json"), JSON.stringify({ model: "m" }));
    writeFileSync(join(config, ".claude.json"), "{}");
    writeFileSync(join(config, ".config.json"), "{}");
    const targets = rootDir("targets");
    const targetFile = join(targets, "root-file");
    writeFileSync(targetFile, "root's", { mode: 0o600 });
    const targetDir = rootDir("target-dir");
    writeFileSync(join(targetDir, "inside"), "root's", { mode: 0o600 });
    const store = await storeWithSession(cwd);

    process.env.TMPDIR = tmp;
    const racer: ChildProcess = spawn(process.execPath, ["-e", RACER, tmp, targetFile, targetDir], {
      uid: user.uid,
      gid: user.gid,
      cwd: "/",
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    racer.stdout?.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const exited = new Promise<void>((resolve) => racer.on("close", () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        racer.stdout?.on("data", () => out.includes("ready") && resolve());
        racer.on("error", reject);
      });
      const owners = () =>
        [targetFile, targetDir, join(targetDir, "inside"), targets].map((p) => {
          const s = statSync(p);
          return `${p} ${s.uid}:${s.gid} ${(s.mode & 0o7777).toString(8)}`;
        });
      const before = owners();
      for (let run = 0; run < RUNS; run++) {
        const prepared = await prepareStoreResume(
          { cwd, sessionStore: store, resume: SESSION, user: user.name },
          { CLAUDE_CONFIG_DIR: config },
        );
        const dir = prepared?.configDir as string;
        expect(owners()).toEqual(before);
        // The racer has its turn on the handed-over tree before it is removed (rm as the user
        // must not follow its symlinks either).
        await new Promise<void>((resolve) => {
          const check = () => {
            if (!out.includes(`done ${dir}\n`)) return;
            racer.stdout?.off("data", check);
            resolve();
          };
          racer.stdout?.on("data", check);
          check();
        });
        expect(isSymlink(join(dir, ".credentials.json"))).toBe(true);
        await prepared?.cleanup();
        expect(existsSync(dir)).toBe(false);
        expect(owners()).toEqual(before);
        expect(existsSync(join(targetDir, "inside"))).toBe(true);
      }
    } finally {
      racer.kill("SIGTERM");
      const bound = setTimeout(() => racer.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(bound);
    }
    // The racer did swap entries (so it raced), yet nothing of root's changed hands.
    expect(Number(out.split("\n").at(-2))).toBeGreaterThan(0);
  }, 120_000);

  it("refuses to build the tree for another user in a temporary directory others may change (not sticky)", async () => {
    const tmp = rootDir("tmp-open");
    chmodSync(tmp, 0o777);
    const cwd = rootDir("cwd-open");
    process.env.TMPDIR = tmp;
    const store = await storeWithSession(cwd);
    await expect(
      prepareStoreResume(
        { cwd, sessionStore: store, resume: SESSION, user: { uid: user.uid, gid: user.gid } },
        {},
      ),
    ).rejects.toThrow(/temporary directory .* can be changed by other users/);
    expect(execFileSync("ls", ["-A", tmp], { encoding: "utf8" })).toBe("");
    chmodSync(tmp, 0o1777); // Sticky, as /tmp: fine.
    const prepared = await prepareStoreResume(
      { cwd, sessionStore: store, resume: SESSION, user: { uid: user.uid, gid: user.gid } },
      { CLAUDE_CONFIG_DIR: rootDir("config-open") },
    );
    expect(statSync(prepared?.configDir as string).uid).toBe(user.uid);
    await prepared?.cleanup();
    expect(existsSync(prepared?.configDir as string)).toBe(false);
  });

  it("the handed-over tree is the user's, every entry; a bare unlisted uid is refused before anything is made", async () => {
    const tmp = rootDir("tmp2");
    const cwd = rootDir("cwd2");
    process.env.TMPDIR = tmp;
    const store = await storeWithSession(cwd);
    const prepared = await prepareStoreResume(
      { cwd, sessionStore: store, resume: SESSION, user: { uid: user.uid, gid: user.gid } },
      { CLAUDE_CONFIG_DIR: rootDir("config2") },
    );
    const dir = prepared?.configDir as string;
    const listing = execFileSync("find", [dir, "-printf", "%U:%G %m %y %p\n"], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(listing.length).toBeGreaterThan(SUBAGENTS);
    for (const line of listing) expect(line).toMatch(new RegExp(`^${user.uid}:${user.gid} (600 f|700 d) `));
    await prepared?.cleanup();
    expect(existsSync(dir)).toBe(false);

    await expect(
      prepareStoreResume({ cwd, sessionStore: store, resume: SESSION, user: 2_000_000_000 }, {}),
    ).rejects.toThrow(/uid 2000000000 is not in/);
    expect(execFileSync("ls", ["-A", tmp], { encoding: "utf8" })).toBe("");
  });
});

describe.skipIf(!asRoot)("the configuration copied for another user (root host)", () => {
  const user = withUnixUser("cascopy");

  it("copies only regular files of the user's or root's: a link to a root-only file, a FIFO and another user's file are left out", async () => {
    const tmp = join(user.base, "tmp");
    const cwd = join(user.base, "cwd");
    const config = join(user.base, "config");
    for (const dir of [tmp, cwd, config]) mkdirSync(dir, { mode: 0o755 });
    chmodSync(tmp, 0o1777);
    chown(config, user.uid, user.gid);
    // The user's configuration directory, which the user arranged.
    const secret = join(user.base, "root-only");
    writeFileSync(secret, "root:$6$ROOT-ONLY-HASH", { mode: 0o600 });
    symlinkSync(secret, join(config, ".credentials.json"));
    execFileSync("mkfifo", [join(config, "settings.json")]);
    writeFileSync(join(config, ".config.json"), '{"fromNobody":1}');
    chown(join(config, ".config.json"), 65534, 65534);
    writeFileSync(join(config, ".claude.json"), '{"fromUser":1}');
    chown(join(config, ".claude.json"), user.uid, user.gid);
    process.env.TMPDIR = tmp;
    const store = new InMemorySessionStore();
    await store.append({ projectKey: projectKeyOf(cwd), sessionId: SESSION }, [{ type: "user", uuid: "u1" }]);
    const prepared = await prepareStoreResume(
      { cwd, sessionStore: store, resume: SESSION, user: { uid: user.uid, gid: user.gid } },
      { CLAUDE_CONFIG_DIR: config },
    );
    const dir = prepared?.configDir as string;
    try {
      expect(existsSync(join(dir, ".credentials.json"))).toBe(false);
      expect(existsSync(join(dir, "settings.json"))).toBe(false);
      expect(existsSync(join(dir, ".config.json"))).toBe(false);
      expect(readFileSync(join(dir, ".claude.json"), "utf8")).toBe('{"fromUser":1}');
    } finally {
      await prepared?.cleanup();
    }
  });
});

function chown(path: string, uid: number, gid: number): void {
  execFileSync("chown", [`${uid}:${gid}`, path]);
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
