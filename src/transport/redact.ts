/**
 * Secret redaction for recordings: what a recorded session must never contain, so a recording can
 * be committed next to the tests that replay it.
 */

/** What replaces a redacted value. */
export const REDACTED = "[REDACTED]";

/** Object keys whose value is a secret whatever it looks like. */
const SECRET_KEY_NAMES =
  /^(authorization|proxy-authorization|x-api-key|api[-_]?key|apikey|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|token|bearer[-_]?token|session[-_]?token|cookie|set-cookie)$/i;
/** Environment-variable style names (`OPENAI_API_KEY`), upper case only: `input_tokens` is not one. */
const SECRET_VAR_KEY = /_(API_KEY|TOKEN|SECRET|PASSWORD)$/;
const SECRET_KEY = { test: (key: string) => SECRET_KEY_NAMES.test(key) || SECRET_VAR_KEY.test(key) };

/** Keys holding an environment: every value in it is redacted (MCP server `env`, shell env). */
const ENV_KEY = /^(env|environment)$/i;

/** Environment variable names whose values are secrets. */
const SECRET_VAR = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/** Key-like strings, wherever they appear in text. */
const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{8,}/g, // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…)
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /\bcrsr_[A-Za-z0-9]{16,}/g, // Cursor API keys
];

/** Replaces secrets in JSON values and text. */
export class Redactor {
  /** Literal secret values (longest first, so a key that contains another is replaced whole). */
  private readonly literals: string[];

  /**
   * @param secrets Values to redact wherever they occur, e.g. the API keys in the CLI's environment.
   */
  constructor(secrets: Iterable<string>) {
    this.literals = [...new Set([...secrets].filter((s) => s.length >= 6))].sort(
      (a, b) => b.length - a.length,
    );
  }

  /**
   * The secrets of an environment: the values of variables named like keys, tokens, secrets or
   * passwords (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `CODEX_API_KEY`, `CURSOR_API_KEY`, `GH_TOKEN`, …).
   */
  static secretsOf(...envs: (Record<string, string | undefined> | undefined)[]): string[] {
    const out: string[] = [];
    for (const env of envs) {
      for (const [name, value] of Object.entries(env ?? {})) {
        if (value && SECRET_VAR.test(name)) out.push(value);
      }
    }
    return out;
  }

  /** `text` with every known secret and key-like string replaced. */
  text(text: string): string {
    let out = text;
    for (const literal of this.literals) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    for (const pattern of KEY_PATTERNS) out = out.replace(pattern, REDACTED);
    return out;
  }

  /** A copy of `value` with secrets redacted: by key name, inside `env` objects, and in every string. */
  value(value: unknown, key?: string): unknown {
    if (typeof value === "string")
      return key !== undefined && SECRET_KEY.test(key) ? REDACTED : this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (ENV_KEY.test(k) && typeof v === "object" && v !== null && !Array.isArray(v)) {
        out[k] = Object.fromEntries(Object.keys(v).map((name) => [name, REDACTED]));
      } else if (SECRET_KEY.test(k) && (typeof v === "string" || typeof v === "number")) {
        out[k] = REDACTED;
      } else {
        out[k] = this.value(v, k);
      }
    }
    return out;
  }
}
