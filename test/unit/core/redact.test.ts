import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "../../../src/testing/index.js";

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

  it("redacts by key name and every value of env objects, keeping the rest as is", () => {
    expect(
      redactor.value({
        type: "control_request",
        headers: { Authorization: "Basic dXNlcjpwYXNz", "content-type": "application/json" },
        mcp: { server: { command: "node", env: { GITHUB_TOKEN: "x", DEBUG: "1" } } },
        apiKey: "anything",
        OPENAI_API_KEY: "anything",
        usage: { input_tokens: 12, output_tokens: 3 },
        apiKeySource: "ANTHROPIC_API_KEY",
      }),
    ).toEqual({
      type: "control_request",
      headers: { Authorization: REDACTED, "content-type": "application/json" },
      mcp: { server: { command: "node", env: { GITHUB_TOKEN: REDACTED, DEBUG: REDACTED } } },
      apiKey: REDACTED,
      OPENAI_API_KEY: REDACTED,
      usage: { input_tokens: 12, output_tokens: 3 },
      apiKeySource: "ANTHROPIC_API_KEY",
    });
  });
});
