/**
 * The queue's cryptography (node:crypto only): who may steer a run, and what Redis sees in clear.
 *
 * - **Run keys** (always on): each producer holds a random master secret in memory; the Ed25519 key
 *   of a run is derived from it and the job id. The job carries only the public key, so the worker
 *   accepts a permission decision or a cancellation only when the producer that enqueued the run
 *   signed it. Anyone reading Redis sees the public key, which lets them verify, not sign.
 * - **The queue key** (optional, operator-provided, the same on producers and workers): HKDF-SHA256
 *   subkeys seal a job's `env` (AES-256-GCM, bound to the job id), MAC the job (a worker with the key
 *   refuses jobs not made by a key holder: raw BullMQ jobs) and MAC every stream entry (a producer
 *   with the key ignores entries not written by a key holder).
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
} from "node:crypto";
import { InvalidOptionsError } from "../errors.js";

/** What the signatures and MACs are bound to, so one context's value is never valid in another. */
const DOMAIN = "code-agent-sdk/queue v1";

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
/** SPKI DER prefix of an Ed25519 public key; the 32-byte key follows (DER has one encoding of it). */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * The Ed25519 private key of a 32-byte seed. Imported as a JWK: OpenSSL 3 decoding DER (PKCS#8)
 * costs ~1.5 ms per key, a raw import ~0.1 ms — and a producer makes one key per job. The DER
 * import stays as the fallback (the JWK form asks for an `x`, which Node ignores for a private key).
 */
function ed25519PrivateKey(seed: Buffer): KeyObject {
  try {
    return createPrivateKey({
      key: { kty: "OKP", crv: "Ed25519", d: seed.toString("base64url"), x: "" },
      format: "jwk",
    });
  } catch {
    return createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
      format: "der",
      type: "pkcs8",
    });
  }
}

/** A producer's source of run keys: one random secret, held in memory only. */
export class RunKeys {
  private readonly master = randomBytes(32);

  /** The run's signing key, derived from the master secret and the job id. */
  private privateKey(jobId: string): KeyObject {
    const seed = createHmac("sha256", this.master).update(`${DOMAIN}\0run-key\0${jobId}`).digest();
    return ed25519PrivateKey(seed);
  }

  /** The public key that goes into the job (SPKI DER, base64). */
  publicKey(jobId: string): string {
    const { x } = createPublicKey(this.privateKey(jobId)).export({ format: "jwk" });
    if (typeof x !== "string") throw new Error("node:crypto exported an Ed25519 key without x");
    return Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(x, "base64url")]).toString("base64");
  }

  /** Signs a permission decision (its JSON text) for one request of one run. */
  signDecision(jobId: string, requestId: string, decision: string): string {
    return sign(null, Buffer.from(decisionText(jobId, requestId, decision)), this.privateKey(jobId)).toString(
      "base64",
    );
  }

  /** Signs a cancellation; `nonce` makes each one different, so a copy cannot be replayed. */
  signCancel(jobId: string, mode: string, nonce: string): string {
    return sign(null, Buffer.from(cancelText(jobId, mode, nonce)), this.privateKey(jobId)).toString("base64");
  }
}

const decisionText = (jobId: string, requestId: string, decision: string) =>
  `${DOMAIN}\0decision\0${jobId}\0${requestId}\0${decision}`;
const cancelText = (jobId: string, mode: string, nonce: string) =>
  `${DOMAIN}\0cancel\0${jobId}\0${mode}\0${nonce}`;

/**
 * The worker's side of {@link RunKeys}: checks signatures with the public key from the job. The
 * one DER encoding of an Ed25519 key (its SPKI prefix and 32 bytes) is accepted by its shape and
 * imported at its first check: most runs never check a signature (no remote permission, no
 * cancellation), and the import was ~0.3 ms of a worker's CPU per job. Anything else goes through
 * OpenSSL's DER decoder at once, as before, and is refused unless it is an Ed25519 key.
 */
export class RunVerifier {
  /**
   * The key, or until its first check the base64url `x` of a raw Ed25519 one (a string: no hold on
   * a pooled buffer).
   */
  private constructor(private key: KeyObject | string) {}

  /** `undefined` when `spki` is not an Ed25519 public key. */
  static from(spki: unknown): RunVerifier | undefined {
    if (typeof spki !== "string" || spki.length > 200) return undefined;
    try {
      const der = Buffer.from(spki, "base64");
      const raw =
        der.length === ED25519_SPKI_PREFIX.length + 32 &&
        der.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX);
      if (raw) return new RunVerifier(der.subarray(ED25519_SPKI_PREFIX.length).toString("base64url"));
      const key = createPublicKey({ key: der, format: "der", type: "spki" });
      return key.asymmetricKeyType === "ed25519" ? new RunVerifier(key) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The public key; a raw one is imported (as a JWK, ~6× cheaper than the DER decoder) once. */
  private keyObject(): KeyObject {
    if (typeof this.key === "string") {
      this.key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: this.key }, format: "jwk" });
    }
    return this.key;
  }

  decision(jobId: string, requestId: string, decision: string, signature: unknown): boolean {
    return this.check(decisionText(jobId, requestId, decision), signature);
  }

  cancel(jobId: string, mode: string, nonce: string, signature: unknown): boolean {
    return this.check(cancelText(jobId, mode, nonce), signature);
  }

  private check(text: string, signature: unknown): boolean {
    if (typeof signature !== "string" || signature.length > 200) return false;
    try {
      return verify(null, Buffer.from(text), this.keyObject(), Buffer.from(signature, "base64"));
    } catch {
      return false;
    }
  }
}

/** AES-256-GCM ciphertext of a job's `env` (base64 fields). */
export interface SealedEnv {
  iv: string;
  data: string;
  tag: string;
}

/** The operator's queue key and its subkeys (see the module comment). */
export class QueueKey {
  private readonly envKey: Buffer;
  private readonly jobKey: Buffer;
  private readonly entryRoot: Buffer;

  private constructor(secret: Buffer) {
    const derive = (use: string) =>
      Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), `${DOMAIN} ${use}`, 32));
    this.envKey = derive("env");
    this.jobKey = derive("job");
    this.entryRoot = derive("entries");
  }

  /**
   * The key from an option value: at least 32 bytes (a string is taken as its UTF-8 bytes; 64 hex
   * characters from `openssl rand -hex 32` are 64 bytes of key material, which is fine).
   */
  static from(value: unknown, name = "key"): QueueKey | undefined {
    if (value === undefined) return undefined;
    const bytes =
      typeof value === "string"
        ? Buffer.from(value, "utf8")
        : value instanceof Uint8Array
          ? Buffer.from(value)
          : undefined;
    if (!bytes || bytes.length < 32)
      throw new InvalidOptionsError([`${name}: must be a string or Uint8Array of at least 32 bytes`]);
    return new QueueKey(bytes);
  }

  seal(jobId: string, env: Record<string, string | null>): SealedEnv {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.envKey, iv);
    cipher.setAAD(Buffer.from(`${DOMAIN}\0env\0${jobId}`));
    const data = Buffer.concat([cipher.update(JSON.stringify(env), "utf8"), cipher.final()]);
    return {
      iv: iv.toString("base64"),
      data: data.toString("base64"),
      tag: cipher.getAuthTag().toString("base64"),
    };
  }

  /** The env sealed for `jobId`, or `undefined` when it does not open (wrong key, job or tampering). */
  open(jobId: string, sealed: unknown): Record<string, string | null> | undefined {
    try {
      const { iv, data, tag } = sealed as SealedEnv;
      const decipher = createDecipheriv("aes-256-gcm", this.envKey, Buffer.from(iv, "base64"));
      decipher.setAAD(Buffer.from(`${DOMAIN}\0env\0${jobId}`));
      decipher.setAuthTag(Buffer.from(tag, "base64"));
      const text = Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString(
        "utf8",
      );
      const env = JSON.parse(text) as unknown;
      if (!env || typeof env !== "object" || Array.isArray(env)) return undefined;
      for (const v of Object.values(env)) if (v !== null && typeof v !== "string") return undefined;
      return env as Record<string, string | null>;
    } catch {
      return undefined;
    }
  }

  /** MAC of a job's data (its JSON text without `mac`) for `jobId`. */
  jobMac(jobId: string, dataJson: string): string {
    return createHmac("sha256", this.jobKey).update(`${jobId}\0${dataJson}`).digest("base64");
  }

  verifyJob(jobId: string, dataJson: string, mac: unknown): boolean {
    return typeof mac === "string" && equal(mac, this.jobMac(jobId, dataJson));
  }

  /** Signs the entries of one run's stream (see {@link EntrySigner}). */
  entries(streamKey: string): EntrySigner {
    return new EntrySigner(createHmac("sha256", this.entryRoot).update(streamKey).digest());
  }
}

/**
 * MACs one run's stream entries (field `m`): the `v`, `a`, `s` and `d` fields of a batch, the `k`,
 * `a`, `s` and `d` fields of a single entry (the layouts of entries.ts). A batch's MAC input starts
 * with a NUL and a label no kind starts with, so neither layout's MAC is valid for the other.
 */
export class EntrySigner {
  constructor(private readonly key: Buffer) {}

  mac(fields: readonly string[]): string {
    const hmac = createHmac("sha256", this.key);
    const batch = fields[0] === "v";
    if (batch) hmac.update("\0batch\0");
    for (const name of batch ? BATCH_FIELDS : SINGLE_FIELDS) hmac.update(`${fieldOf(fields, name) ?? ""}\0`);
    return hmac.digest("base64");
  }

  /** `fields` with their MAC appended. */
  sign(fields: string[]): string[] {
    return [...fields, "m", this.mac(fields)];
  }

  /** Exactly the fields `v a s d m` or `k a s d m`, in that order (no field twice), with a valid MAC. */
  verify(fields: readonly string[]): boolean {
    const names = fields[0] === "v" ? BATCH_FIELDS : SINGLE_FIELDS;
    if (fields.length !== 10 || [...names, "m"].some((name, i) => fields[2 * i] !== name)) return false;
    return equal(fields[9]!, this.mac(fields));
  }
}

const BATCH_FIELDS = ["v", "a", "s", "d"] as const;
const SINGLE_FIELDS = ["k", "a", "s", "d"] as const;

function fieldOf(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
