import { describe, expect, it } from "vitest";
import { AgentSdkError } from "../../../src/index.js";
import { REDACTED, Redactor } from "../../../src/testing/index.js";
import { KEPT_ENV_NAMES } from "../../../src/transport/redact.js";

describe("Redactor", () => {
  const redactor = new Redactor(
    Redactor.secretsOf({ ANTHROPIC_API_KEY: "plain-secret-value", HOME: "/home/me" }),
  );

  it("redacts the values of key-like environment variables wherever they appear, not other variables", () => {
    expect(redactor.text("key=plain-secret-value; home=/home/me")).toBe(`key=${REDACTED}; home=/home/me`);
  });

  it("redacts key-like strings: provider keys, bearer tokens, GitHub tokens, JWTs", () => {
    for (const secret of [
      "sk-ant-api03-abcdefghijklmnop",
      "sk-proj-abcdefghijklmnop",
      "Bearer abcdefghijklmnop",
      "ghp_abcdefghijklmnopqrstuvwxyz0123",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
    ]) {
      expect(redactor.text(`before ${secret} after`)).toBe(`before ${REDACTED} after`);
    }
  });

  it("redacts the token shapes of the issue's samples and other providers, wherever they stand", () => {
    const none = new Redactor([]);
    for (const secret of [
      "sk_live_51HfakeStripe0123456789abcdef",
      "rk_test_51HfakeStripe0123456789abcdef",
      "glpat-AbCdEf0123456789xyzQ",
      "ya29.a0AfH6SMBfakeGoogleOauthToken0123",
      "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
      "gho_abcdefghijklmnopqrstuvwxyz0123",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "xoxb-123456789012-abcdefghijklmnop",
      "xoxp-123456789012-abcdefghijklmnop",
      "AKIAIOSFODNN7EXAMPLE",
      "ASIAIOSFODNN7EXAMPLE",
      "AIzaSyA-fake0123456789abcdefghijklmnopq",
      "hf_abcdefghijklmnopqrstuvwxyz01234567",
    ]) {
      for (const context of [`before ${secret} after`, `"${secret}"`, `x=${secret}\n`, `\t${secret}`]) {
        expect(none.text(context), context).not.toContain(secret);
      }
    }
    // Words that only look a little like them stay.
    expect(none.text("task-manager ask-me sk-short npm_run AKIA")).toBe(
      "task-manager ask-me sk-short npm_run AKIA",
    );
  });

  it("redacts PEM private key blocks, whole or cut, and keeps public certificates", () => {
    const none = new Redactor([]);
    const key =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAfakeKeyBody0123\nmoreKeyBody==\n-----END RSA PRIVATE KEY-----";
    expect(none.text(`id_rsa:\n${key}\ndone`)).toBe(`id_rsa:\n${REDACTED}\ndone`);
    const numbered = "     1\t-----BEGIN OPENSSH PRIVATE KEY-----\n     2\tb3BlbnNzaC1rZXktdjEAAAAAfake\n";
    expect(none.text(numbered)).not.toContain("b3BlbnNzaC1rZXktdjEAAAAAfake");
    const cert = "-----BEGIN CERTIFICATE-----\nMIIBfakeCert\n-----END CERTIFICATE-----";
    expect(none.text(cert)).toBe(cert);
  });

  it("redacts URL userinfo and key-like query values, keeping the rest of the URL", () => {
    const none = new Redactor([]);
    expect(none.text("DATABASE_URL is postgres://app:Db-Url-Pw-5150@db.internal:5432/app")).toBe(
      `DATABASE_URL is postgres://${REDACTED}@db.internal:5432/app`,
    );
    expect(none.text("clone https://x-access-token:tok123456@github.com/o/r.git")).toBe(
      `clone https://${REDACTED}@github.com/o/r.git`,
    );
    expect(none.text("https://mcp.example.test/mcp?team=a&api_key=q-secret-3141&x=1")).toBe(
      `https://mcp.example.test/mcp?team=a&api_key=${REDACTED}&x=1`,
    );
    expect(none.text("https://h/p?token=abc&X-Amz-Signature=def#frag")).toBe(
      `https://h/p?token=${REDACTED}&X-Amz-Signature=${REDACTED}#frag`,
    );
    expect(none.text("https://example.com/docs?page=2")).toBe("https://example.com/docs?page=2");
  });

  it("redacts the values of secret-named assignments in text (.env files, credentials files, JSON text)", () => {
    const none = new Redactor([]);
    expect(none.text("DB_PASS=hunter2\nDB_HOST=db.internal\n")).toBe(
      `DB_PASS=${REDACTED}\nDB_HOST=db.internal\n`,
    );
    expect(none.text("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBe(
      `aws_secret_access_key = ${REDACTED}`,
    );
    expect(none.text('{"password": "p4ss", "user": "me"}')).toBe(`{"password": "${REDACTED}", "user": "me"}`);
    expect(none.text("Authorization: Basic dXNlcjpwYXNz")).toBe(`Authorization: ${REDACTED}`);
    // Counters and prose are not assignments of secrets.
    expect(none.text("input_tokens: 12, max_tokens=1024, tokens_used=3")).toBe(
      "input_tokens: 12, max_tokens=1024, tokens_used=3",
    );
  });

  it("valuesOf: every value of the CLI's environment except the kept names (prefixes with *), and keepEnv", () => {
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LC_ALL: "en_US.UTF-8",
      XDG_CONFIG_HOME: "/home/me/.config",
      DB_PASS: "hunter2-db",
      DATABASE_URL: "postgres://app:pw@db/app",
      SOME_SETTING: "not-obviously-secret",
      EMPTY: "",
    };
    expect(Redactor.valuesOf(env).sort()).toEqual(
      ["hunter2-db", "postgres://app:pw@db/app", "not-obviously-secret"].sort(),
    );
    expect(Redactor.valuesOf(env, [...KEPT_ENV_NAMES, "SOME_SETTING"])).not.toContain("not-obviously-secret");
    expect(KEPT_ENV_NAMES).toEqual(expect.arrayContaining(["PATH", "HOME", "LANG", "TERM", "LC_*"]));
    const fromEnv = new Redactor(Redactor.valuesOf(env));
    expect(fromEnv.text("echo hunter2-db in /home/me")).toBe(`echo ${REDACTED} in /home/me`);
  });

  it("redacts by key name, every value of env and headers objects, and the args of a process spec", () => {
    expect(
      redactor.value({
        type: "control_request",
        headers: { Authorization: "Basic dXNlcjpwYXNz", "X-Api-Token": "hdr-secret-0042" },
        mcp: {
          server: {
            command: "node",
            args: ["server.js", "--token", "mcp-arg-secret"],
            env: { GITHUB_TOKEN: "x" },
          },
          remote: { type: "http", url: "https://h/mcp?api_key=q-secret-31", headers: { "X-Key": "hdr-2" } },
        },
        apiKey: "anything",
        OPENAI_API_KEY: "anything",
        usage: { input_tokens: 12, output_tokens: 3 },
        apiKeySource: "ANTHROPIC_API_KEY",
        tool: { args: ["kept: not a process spec"] },
      }),
    ).toEqual({
      type: "control_request",
      headers: { Authorization: REDACTED, "X-Api-Token": REDACTED },
      mcp: {
        server: { command: "node", args: [REDACTED, REDACTED, REDACTED], env: { GITHUB_TOKEN: REDACTED } },
        remote: { type: "http", url: `https://h/mcp?api_key=${REDACTED}`, headers: { "X-Key": REDACTED } },
      },
      apiKey: REDACTED,
      OPENAI_API_KEY: REDACTED,
      usage: { input_tokens: 12, output_tokens: 3 },
      apiKeySource: "ANTHROPIC_API_KEY",
      tool: { args: ["kept: not a process spec"] },
    });
  });

  it("a value nested deeper than 1000 levels is refused with a typed error, not a stack overflow", () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 20_000; i++) deep = { next: deep };
    expect(() => redactor.value(deep)).toThrow(AgentSdkError);
    expect(() => redactor.value(deep)).toThrow(/deeper than 1000 levels/);
  });

  it("stays linear on adversarial text (no pattern rescans a long run from every position)", () => {
    const none = new Redactor([]);
    for (const unit of [
      "eyJ-",
      "sk-a",
      "a.",
      "xoxb-",
      "a_",
      "https:",
      "-----BEGIN PRIVATE KEY-----",
      "?key",
      "pass",
    ]) {
      const text = unit.repeat(Math.ceil(400_000 / unit.length));
      const started = performance.now();
      none.text(text);
      // Linear: a few ms on an idle machine; a quadratic pattern takes minutes on this input.
      expect(performance.now() - started, unit).toBeLessThan(3_000);
    }
  });
});
