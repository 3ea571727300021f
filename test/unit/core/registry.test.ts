/**
 * Backends load on first use: `getBackend` answers at once, `loadBackend` (and every session
 * start) brings in the implementation.
 */
import { describe, expect, it } from "vitest";
import { CURSOR_CAPABILITIES } from "../../../src/backends/capabilities.js";
import {
  AgentSdkError,
  CliNotFoundError,
  getBackend,
  InvalidOptionsError,
  loadBackend,
  UnsupportedOptionsError,
} from "../../../src/index.js";

describe("backend registry", () => {
  it("knows a backend's name and capabilities before it is loaded, and validates once it is", async () => {
    const lazy = getBackend("cursor");
    expect(lazy.name).toBe("cursor");
    expect(lazy.capabilities).toBe(CURSOR_CAPABILITIES);
    expect(() => lazy.validateOptions({})).toThrow(AgentSdkError);
    expect(() => lazy.validateOptions({})).toThrow(/await loadBackend\("cursor"\)/);

    const backend = await loadBackend("cursor");
    expect(await loadBackend("cursor")).toBe(backend);
    expect(getBackend("cursor")).toBe(backend);
    expect(() => lazy.validateOptions({ systemPrompt: "x" })).toThrow(UnsupportedOptionsError);
    expect(() => backend.validateOptions({ maxTurns: 0 })).toThrow(InvalidOptionsError);
  });

  it("opens a session through a backend that was not loaded yet", async () => {
    const lazy = getBackend("claude");
    await expect(
      lazy.openSession({ options: { cliPath: "/nonexistent/claude" }, oneShot: true, initialPrompt: "hi" }),
    ).rejects.toBeInstanceOf(CliNotFoundError);
    expect(getBackend("claude")).not.toBe(lazy);
  });

  it("rejects an unknown backend", async () => {
    expect(() => getBackend("nope" as never)).toThrow(InvalidOptionsError);
    await expect(loadBackend("nope" as never)).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});
