/**
 * Secret redaction for recordings: what a recorded session must not contain in clear. It is a
 * best effort over known shapes and the session's own environment, so a recording must still be
 * reviewed before it is committed or shared.
 *
 * Every pattern here runs on untrusted text (what the CLI printed, files the agent read), so each
 * one is linear in its input: a match can only start where a run of its characters starts
 * (a look-behind for the same class), and every open-ended part is a single character class.
 */
import { AgentSdkError } from "../errors.js";

/** What replaces a redacted value. */
export const REDACTED = "[REDACTED]";

/** How deep a JSON value may nest for {@link Redactor.value} (deeper: an `AgentSdkError`). */
export const MAX_REDACTION_DEPTH = 1000;

/** The shortest environment value looked for as a literal: shorter ones (`1`, `true`) are everywhere. */
export const MIN_SECRET_LENGTH = 6;

/** Object keys whose value is a secret whatever it looks like. */
const SECRET_KEY_NAMES =
  /^(authorization|proxy-authorization|x-api-key|api[-_]?key|apikey|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|token|bearer[-_]?token|session[-_]?token|cookie|set-cookie)$/i;
/** Environment-variable style names (`OPENAI_API_KEY`, `DB_PASS`), upper case only: `input_tokens` is not one. */
const SECRET_VAR_KEY = /_(API_KEY|TOKEN|SECRET|PASSWORD|PASS|PASSWD|PWD)$/;
const SECRET_KEY = { test: (key: string) => SECRET_KEY_NAMES.test(key) || SECRET_VAR_KEY.test(key) };

/** Keys holding an environment or request headers: every value in them is redacted (MCP `env`, `headers`). */
const ENV_KEY = /^(env|environment|headers|http_headers|env_http_headers)$/i;

/** Environment variable names whose values are secrets (for {@link Redactor.secretsOf}). */
const SECRET_VAR = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIAL|AUTH)/i;

/**
 * Environment variables whose values are kept in recordings: they are not secrets, and paths and
 * locale settings show up in what the CLI prints. Every other variable's value (at least
 * `MIN_SECRET_LENGTH` (6) characters) is redacted wherever it appears.
 */
export const KEPT_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "PWD",
  "OLDPWD",
  "INIT_CWD",
  "TMPDIR",
  "TMP",
  "TEMP",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "TERM",
  "TERM_PROGRAM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "COLUMNS",
  "LINES",
  "SHLVL",
  "HOSTNAME",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "DISPLAY",
  "XDG_*",
  "NODE_ENV",
  "NODE",
  "CI",
  "npm_package_*",
  "npm_lifecycle_*",
  "npm_command",
  "npm_execpath",
  "npm_node_execpath",
  "CLAUDE_CODE_ENTRYPOINT",
  "CLAUDE_AGENT_SDK_VERSION",
  "CLAUDE_CONFIG_DIR",
  "CLAUDE_CODE_TMPDIR",
  "CODEX_HOME",
  "CODEX_INTERNAL_ORIGINATOR_OVERRIDE",
];

/** Key-like strings, wherever they appear in text. Each starts only where a run of its characters starts. */
const KEY_PATTERNS: readonly RegExp[] = [
  // PEM private keys: the whole block (or to the end of the text when it was cut).
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----|$)/g,
  /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{8,}/g, // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…)
  /(?<![A-Za-z0-9_])[sr]k_(live|test)_[A-Za-z0-9]{8,}/g, // Stripe secret / restricted keys
  /(?<![A-Za-z0-9_-])gl(pat|dt|rt|ptt|cbt|oas|soat|ffct|agent)-[A-Za-z0-9_-]{10,}/g, // GitLab
  /(?<![A-Za-z0-9_.-])ya29\.[A-Za-z0-9_-]{10,}/g, // Google OAuth access tokens
  /(?<![A-Za-z0-9_])AIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{20,}/g, // npm tokens
  /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}/g,
  /(?<![A-Za-z0-9_-])xox[abposre]-[A-Za-z0-9-]{10,}/g, // Slack
  /(?<![A-Za-z0-9_-])xapp-[A-Za-z0-9-]{10,}/g,
  /(?<![A-Za-z0-9])(AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Z])/g, // AWS key ids
  /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/g, // Hugging Face
  /(?<![A-Za-z0-9_])crsr_[A-Za-z0-9]{16,}/g, // Cursor API keys
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /(?<![A-Za-z0-9_])Bearer\s{1,10}[A-Za-z0-9._~+/=-]{8,}/gi,
];

/** URL userinfo (`postgres://user:password@host`, `https://token@host`): the whole userinfo goes. */
const USERINFO = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/)[^\s/?#@"'<>]{1,512}@/g;

/**
 * `name = value`, `name: value`, `"name": "value"` where the name ends like a secret (`DB_PASS`,
 * `password`, `aws_secret_access_key`, `api_key`, `client_secret`, `auth_token`,
 * `Authorization`): the value goes, the name stays. A name starts where a run of word characters starts.
 */
const ASSIGNMENT =
  /(?<!\w)(\w*?(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|apikey|access[-_]?key(?:[-_]?id)?|private[-_]?key|credentials?|authorization))(["']?[ \t]{0,10}[:=][ \t]{0,10}["']?)(?:(?:Basic|Bearer|Token|Digest)[ \t]{1,10})?(?!\[REDACTED\])[^\s"'&,;<>]+/gi;

/** Key-like URL query parameters (`?token=`, `&api_key=`, `&X-Amz-Signature=`): the value goes. */
const QUERY =
  /([?&][\w.-]{0,40}?(?:key|token|secret|pass(?:word)?|pwd|sig|signature|auth|credential)s?=)[^&#\s"'<>]+/gi;

/** Whether environment variable `name` is in `kept` (entries ending in `*` are prefixes). */
function isKept(name: string, kept: readonly string[]): boolean {
  return kept.some((entry) => (entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : name === entry));
}

/** Replaces secrets in JSON values and text. */
export class Redactor {
  /** Literal secret values (longest first, so a key that contains another is replaced whole). */
  private readonly literals: string[];

  /**
   * @param secrets Values to redact wherever they occur, e.g. the values of the CLI's environment.
   *   Values shorter than `MIN_SECRET_LENGTH` (6) are ignored.
   */
  constructor(secrets: Iterable<string>) {
    this.literals = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH))].sort(
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

  /**
   * Every value of an environment except those of the variables in `kept` (default
   * {@link KEPT_ENV_NAMES}; `LC_*` style entries are prefixes) — what a recording redacts of the
   * CLI's environment.
   */
  static valuesOf(
    env: Record<string, string | undefined> | undefined,
    kept: readonly string[] = KEPT_ENV_NAMES,
  ): string[] {
    const out: string[] = [];
    for (const [name, value] of Object.entries(env ?? {})) {
      if (typeof value === "string" && value !== "" && !isKept(name, kept)) out.push(value);
    }
    return out;
  }

  /** `text` with every known secret and key-like string replaced. */
  text(text: string): string {
    let out = text;
    for (const literal of this.literals) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    for (const pattern of KEY_PATTERNS) out = out.replace(pattern, REDACTED);
    out = out.replace(USERINFO, (_match, scheme: string) => `${scheme}${REDACTED}@`);
    out = out.replace(
      ASSIGNMENT,
      (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`,
    );
    return out.replace(QUERY, (_match, name: string) => `${name}${REDACTED}`);
  }

  /**
   * A copy of `value` with secrets redacted: by key name, every value of `env` / `headers`
   * objects, every argument of a process spec (an object with `command` and `args`, such as an MCP
   * server's), and in every string.
   *
   * @throws AgentSdkError when `value` nests deeper than `MAX_REDACTION_DEPTH` (1000) levels.
   */
  value(value: unknown): unknown {
    return this.redactValue(value, undefined, 0);
  }

  private redactValue(value: unknown, key: string | undefined, depth: number): unknown {
    if (typeof value === "string")
      return key !== undefined && SECRET_KEY.test(key) ? REDACTED : this.text(value);
    if (typeof value !== "object" || value === null) return value;
    if (depth >= MAX_REDACTION_DEPTH) {
      throw new AgentSdkError(`The value nests deeper than ${MAX_REDACTION_DEPTH} levels`);
    }
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, undefined, depth + 1));
    const record = value as Record<string, unknown>;
    const isProcessSpec = typeof record.command === "string" && Array.isArray(record.args);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      if (ENV_KEY.test(k) && typeof v === "object" && v !== null && !Array.isArray(v)) {
        out[k] = Object.fromEntries(Object.keys(v).map((name) => [name, REDACTED]));
      } else if (isProcessSpec && k === "args") {
        out[k] = (v as unknown[]).map(() => REDACTED);
      } else if (SECRET_KEY.test(k) && (typeof v === "string" || typeof v === "number")) {
        out[k] = REDACTED;
      } else {
        out[k] = this.redactValue(v, k, depth + 1);
      }
    }
    return out;
  }
}
