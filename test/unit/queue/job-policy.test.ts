/**
 * The worker's check of a job (deny by default) and the queue's cryptography, without Redis.
 */
import { createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../../src/errors.js";
import { admitJob } from "../../../src/queue/admit.js";
import { QueueKey, RunKeys, RunVerifier } from "../../../src/queue/auth.js";
import { JobRefusedError } from "../../../src/queue/errors.js";
import { AgentWorker } from "../../../src/queue/index.js";
import { refusedFields } from "../../../src/queue/job-policy.js";
import { toJobData } from "../../../src/queue/remote-options.js";

const refusal = async (
  data: unknown,
  ...rest: Parameters<typeof admitJob> extends [unknown, unknown, ...infer R] ? R : never
) => {
  const error = await admitJob("job-1", data, ...rest).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(JobRefusedError);
  return (error as JobRefusedError).issues;
};

describe("what a worker accepts from a job (deny by default)", () => {
  it("accepts the safe set: prompt, model, limits, prompt text, output shape", async () => {
    const options = {
      model: "sonnet",
      maxTurns: 3,
      maxBudgetUsd: 1,
      effort: "low",
      systemPrompt: { type: "preset", preset: "claude_code", append: "Be brief." },
      outputFormat: { type: "json_schema", schema: { type: "object" } },
      disallowedTools: ["Bash"],
      permissionMode: "plan",
      includePartialMessages: true,
    };
    expect(refusedFields(options)).toEqual([]);
    const admitted = await admitJob(
      "job-1",
      { v: 1, prompt: "hi", options, timeoutMs: 1_000 },
      {},
      undefined,
    );
    expect(admitted.options).toEqual(options);
  });

  it("refuses every field that names a binary, an environment, argv, servers, settings, files or escalation", async () => {
    const options = {
      backend: "acp",
      acp: { command: "/bin/sh", args: ["-c", "touch /tmp/pwned"] },
      cliPath: "/bin/sh",
      env: { ANTHROPIC_BASE_URL: "http://elsewhere" },
      inheritEnv: false,
      extraArgs: { "dangerously-skip-permissions": null },
      mcpServers: { x: { type: "stdio", command: "/bin/sh" } },
      settings: { hooks: {} },
      settingSources: ["project"],
      plugins: [{ type: "local", path: "/x" }],
      record: "/tmp/rec.jsonl",
      user: "root",
      autoInstallCli: true,
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      allowedTools: ["Bash"],
      cwd: "/",
      addDirs: ["/etc"],
      codex: { sandboxMode: "danger-full-access", reasoningEffort: "low" },
      resume: "abc",
      someFutureOption: 1,
    };
    const issues = await refusal({ v: 1, prompt: "hi", options }, {}, undefined);
    const fields = issues.map((i) => i.split(":")[0]);
    expect(fields).toEqual([
      "backend",
      "acp.command",
      "acp.args",
      "cliPath",
      "env",
      "inheritEnv",
      "extraArgs",
      "mcpServers",
      "settings",
      "settingSources",
      "plugins",
      "record",
      "user",
      "autoInstallCli",
      "permissionMode",
      "allowDangerouslySkipPermissions",
      "allowedTools",
      "cwd",
      "addDirs",
      "codex.sandboxMode",
      "resume",
      "someFutureOption",
    ]);
    expect(issues.join("\n")).toContain("accept.cliPath");
  });

  it("accepts each refused field once the operator opts in, field by field", async () => {
    const options = {
      backend: "acp",
      acp: { command: "/bin/true" },
      env: { ANTHROPIC_BASE_URL: "http://elsewhere", TZ: "UTC" },
      extraArgs: { foo: null },
      record: "/tmp/rec.jsonl",
    };
    expect(
      refusedFields(options, { backends: ["acp"], acp: true, env: true, extraArgs: true, record: true }),
    ).toEqual([]);
    // A list of variable names admits only those.
    expect(refusedFields({ env: { TZ: "UTC", ANTHROPIC_BASE_URL: "x" } }, { env: ["TZ"] })).toEqual([
      "env.ANTHROPIC_BASE_URL: not in accept.env",
    ]);
  });

  it("confines cwd and addDirs to accept.cwd.root, symlinks resolved", async () => {
    const root = mkdtempSync(join(tmpdir(), "cas-root-"));
    try {
      mkdirSync(join(root, "work"));
      symlinkSync("/etc", join(root, "escape"));
      const accept = { cwd: { root } };
      const ok = await admitJob("j", { v: 1, prompt: "x", options: { cwd: "work" } }, accept, undefined);
      expect(ok.options.cwd).toBe(join(root, "work"));
      for (const cwd of ["/etc", "../", join(root, "escape"), join(root, "escape", "ssl")]) {
        const issues = await refusal({ v: 1, prompt: "x", options: { cwd } }, accept, undefined);
        expect(issues).toEqual([expect.stringMatching(/^cwd: .*outside accept\.cwd\.root|^cwd: .*symlink/)]);
      }
      const dirs = await refusal(
        { v: 1, prompt: "x", options: { addDirs: ["work", "/tmp"] } },
        accept,
        undefined,
      );
      expect(dirs).toEqual([expect.stringMatching(/^addDirs\[1\]: \/tmp is outside/)]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses durations a Node timer cannot wait, at enqueue, at start and on the worker", async () => {
    expect(() => toJobData("hi", {}, 2 ** 31)).toThrow(InvalidOptionsError);
    expect(() => toJobData("hi", {}, undefined, 2 ** 31)).toThrow(/permissionTimeoutMs/);
    expect(() => toJobData("hi", {}, 2 ** 31 - 1)).not.toThrow();
    await expect(
      AgentWorker.start({ connection: "redis://127.0.0.1:1", defaultTimeoutMs: 2 ** 31 }),
    ).rejects.toBeInstanceOf(InvalidOptionsError);
    expect(await refusal({ v: 1, prompt: "x", timeoutMs: 2 ** 31 }, {}, undefined)).toEqual([
      expect.stringMatching(/^timeoutMs: /),
    ]);
    expect(
      await refusal(
        {
          v: 1,
          prompt: "x",
          remotePermissions: { timeoutMs: 2 ** 40 },
          auth: { runKey: new RunKeys().publicKey("x") },
        },
        {},
        undefined,
      ),
    ).toEqual([expect.stringMatching(/^remotePermissions\.timeoutMs: /)]);
  });

  it("refuses remote permissions without a run key, a bad payload, a version it does not know", async () => {
    expect(await refusal({ v: 1, prompt: "x", remotePermissions: { timeoutMs: 10 } }, {}, undefined)).toEqual(
      [expect.stringMatching(/^remotePermissions: /)],
    );
    expect(await refusal({ v: 2, prompt: "x" }, {}, undefined)).toEqual([expect.stringMatching(/^v: /)]);
    expect(await refusal("nope", {}, undefined)).toHaveLength(1);
    expect(await refusal({ v: 1, prompt: 5, extra: 1 }, {}, undefined)).toEqual([
      expect.stringMatching(/^extra: /),
      expect.stringMatching(/^prompt: /),
    ]);
  });
});

describe("the queue's keys", () => {
  const key = QueueKey.from("k".repeat(32))!;
  afterAll(() => {});

  it("signs decisions and cancellations per run; a verifier from the job checks them", () => {
    const keys = new RunKeys();
    const verifier = RunVerifier.from(keys.publicKey("job-1"))!;
    const sig = keys.signDecision("job-1", "req", '{"behavior":"allow"}');
    expect(verifier.decision("job-1", "req", '{"behavior":"allow"}', sig)).toBe(true);
    expect(verifier.decision("job-1", "req", '{"behavior":"deny"}', sig)).toBe(false);
    expect(verifier.decision("job-1", "other", '{"behavior":"allow"}', sig)).toBe(false);
    // Another producer (or another run of this one) cannot sign for this run.
    expect(verifier.decision("job-1", "req", "{}", new RunKeys().signDecision("job-1", "req", "{}"))).toBe(
      false,
    );
    expect(verifier.decision("job-1", "req", "{}", keys.signDecision("job-2", "req", "{}"))).toBe(false);
    expect(verifier.cancel("job-1", "abort", "n", keys.signCancel("job-1", "abort", "n"))).toBe(true);
    expect(verifier.cancel("job-1", "abort", "n", keys.signCancel("job-1", "interrupt", "n"))).toBe(false);
    expect(RunVerifier.from("not a key")).toBeUndefined();
  });

  it("a run's public key is the SPKI DER of its key (imported raw), and a verifier takes any Ed25519 SPKI, nothing else", () => {
    const spki = new RunKeys().publicKey("job-1");
    const der = Buffer.from(spki, "base64");
    const key = createPublicKey({ key: der, format: "der", type: "spki" });
    expect(key.asymmetricKeyType).toBe("ed25519");
    expect(key.export({ format: "der", type: "spki" }).equals(der)).toBe(true);
    const other = generateKeyPairSync("ed25519");
    const signature = sign(
      null,
      Buffer.from("code-agent-sdk/queue v1\0cancel\0j\0abort\0n"),
      other.privateKey,
    );
    const otherSpki = other.publicKey.export({ format: "der", type: "spki" }).toString("base64");
    expect(RunVerifier.from(otherSpki)?.cancel("j", "abort", "n", signature.toString("base64"))).toBe(true);
    const x25519 = generateKeyPairSync("x25519").publicKey.export({ format: "der", type: "spki" });
    expect(RunVerifier.from(x25519.toString("base64"))).toBeUndefined();
    // The Ed25519 prefix with a key too short goes to the DER decoder, which refuses it.
    expect(RunVerifier.from(der.subarray(0, 40).toString("base64"))).toBeUndefined();
  });

  it("a run key of the Ed25519 SPKI shape is taken by its shape and checks signatures the same, each verifier with its own key", () => {
    const keys = new RunKeys();
    const one = RunVerifier.from(keys.publicKey("job-1"))!;
    const two = RunVerifier.from(keys.publicKey("job-2"))!;
    // Checked more than once (the key imported at the first check is kept) and against the other run.
    for (let i = 0; i < 2; i++) {
      expect(one.cancel("job-1", "abort", "n", keys.signCancel("job-1", "abort", "n"))).toBe(true);
      expect(two.cancel("job-1", "abort", "n", keys.signCancel("job-1", "abort", "n"))).toBe(false);
      expect(two.cancel("job-2", "abort", "n", keys.signCancel("job-2", "abort", "n"))).toBe(true);
    }
    // Any 32 bytes after the prefix are an Ed25519 public key to node:crypto: no check throws.
    const zeros = Buffer.concat([
      Buffer.from(keys.publicKey("job-1"), "base64").subarray(0, 12),
      Buffer.alloc(32),
    ]);
    const verifier = RunVerifier.from(zeros.toString("base64"));
    expect(verifier).toBeDefined();
    expect(verifier!.cancel("job-1", "abort", "n", keys.signCancel("job-1", "abort", "n"))).toBe(false);
    expect(verifier!.cancel("job-1", "abort", "n", "not base64 at all")).toBe(false);
  });

  it("seals env for one job only, MACs jobs and entries", () => {
    const sealed = key.seal("job-1", { SECRET: "s3cret", DROP: null });
    expect(JSON.stringify(sealed)).not.toContain("s3cret");
    expect(key.open("job-1", sealed)).toEqual({ SECRET: "s3cret", DROP: null });
    expect(key.open("job-2", sealed)).toBeUndefined();
    expect(QueueKey.from("o".repeat(32))!.open("job-1", sealed)).toBeUndefined();
    expect(key.verifyJob("job-1", "{}", key.jobMac("job-1", "{}"))).toBe(true);
    expect(key.verifyJob("job-2", "{}", key.jobMac("job-1", "{}"))).toBe(false);
    const signer = key.entries("stream-1");
    const fields = signer.sign(["k", "end", "a", "1", "s", "3", "d", "{}"]);
    expect(signer.verify(fields)).toBe(true);
    expect(key.entries("stream-2").verify(fields)).toBe(false);
    // A field added after the MAC (which a Map-based decoder would take instead) is refused.
    expect(signer.verify([...fields, "k", "message"])).toBe(false);
    const tampered = [...fields];
    tampered[3] = "2";
    expect(signer.verify(tampered)).toBe(false);
    // A batch (fields v a s d) is MACed too; its MAC is not valid in the other layout or stream.
    const batch = signer.sign(["v", "2", "a", "1", "s", "3", "d", '[["end",{}]]']);
    expect(signer.verify(batch)).toBe(true);
    expect(key.entries("stream-2").verify(batch)).toBe(false);
    expect(signer.verify(["k", ...batch.slice(1)])).toBe(false);
    expect(signer.verify(["k", "2", ...batch.slice(2, 8), "m", signer.mac(batch)])).toBe(false);
    expect(signer.verify([...batch, "v", "3"])).toBe(false);
    const moved = [...batch];
    moved[5] = "4";
    expect(signer.verify(moved)).toBe(false);
    expect(() => QueueKey.from("short")).toThrow(InvalidOptionsError);
  });

  it("a keyed worker refuses a job without the queue key's MAC, and opens a sealed env", async () => {
    const raw = { v: 1, prompt: "x" };
    expect(await refusal(raw, {}, key)).toEqual([expect.stringMatching(/^mac: /)]);
    const sealed = { v: 1, prompt: "x", options: {}, sealedEnv: key.seal("job-1", { TZ: "UTC" }) };
    const data = { ...sealed, mac: key.jobMac("job-1", JSON.stringify(sealed)) };
    expect((await admitJob("job-1", data, { env: true }, key)).options.env).toEqual({ TZ: "UTC" });
    // The env still needs accept.env, sealed or not.
    expect(await refusal(data, {}, key)).toEqual([expect.stringMatching(/^env: /)]);
    // A worker without the key cannot open it.
    expect(await refusal(sealed, { env: true }, undefined)).toEqual([expect.stringMatching(/^sealedEnv: /)]);
  });

  it("a prompt is text or content blocks of the public shapes: an image by a path on the worker's disk is refused", async () => {
    const image = (source: unknown) => ({ type: "image", source });
    const ok = [
      { type: "text", text: "look" },
      image({ type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }),
      image({ type: "url", url: "https://example.com/a.png" }),
    ];
    expect((await admitJob("j", { v: 1, prompt: ok }, {}, undefined)).prompt).toEqual(ok);
    const accept = { cwd: { root: tmpdir() } };
    for (const [block, issue] of [
      [image({ type: "path", path: "/etc/passwd" }), /a path on the worker's disk is never accepted/],
      [image({ type: "url", url: "file:///etc/passwd" }), /must be http\(s\)/],
      [image({ type: "base64", media_type: "text/plain", data: "eA==" }), /media_type/],
      [image({ type: "base64", media_type: "image/png", data: "eA==", path: "/x" }), /only type, media_type/],
      [{ type: "text", text: "x", extra: { deep: [] } }, /only type and text/],
      [{ type: "document", source: {} }, /text or an image/],
      [Object.create(null), /text or an image/],
      ["text", /not a content block/],
    ] as const) {
      expect(
        await refusal({ v: 1, prompt: [{ type: "text", text: "hi" }, block] }, accept, undefined),
      ).toEqual([expect.stringMatching(new RegExp(`^prompt\\[1\\]: .*${issue.source}`))]);
    }
  });

  it("keys named like Object.prototype's are refused as unknown, not crashed on; odd values are described", async () => {
    for (const section of ["codex", "cursor", "acp"]) {
      const options = JSON.parse(`{"${section}": {"__proto__": 1, "constructor": 2, "toString": 3}}`);
      const issues = await refusal({ v: 1, prompt: "hi", options }, {}, undefined);
      expect(issues).toHaveLength(3);
      for (const issue of issues)
        expect(issue).toMatch(new RegExp(`^${section}\\.(__proto__|constructor|toString): widens`));
    }
    const top = JSON.parse('{"constructor": 1, "hasOwnProperty": 2}');
    expect(await refusal({ v: 1, prompt: "hi", options: top }, {}, undefined)).toEqual([
      expect.stringMatching(/^constructor: not accepted from a queue job/),
      expect.stringMatching(/^hasOwnProperty: not accepted from a queue job/),
    ]);
    const nullProto = Object.create(null);
    expect(await refusal({ v: nullProto, prompt: "hi" }, {}, undefined)).toBeDefined();
    expect(await refusal({ v: 1, prompt: "hi", options: { backend: nullProto } }, {}, undefined)).toEqual([
      expect.stringMatching(/^backend: .* is not accepted/),
    ]);
  });
});
