/**
 * The support table (`OPTION_SUPPORT`) is what every backend refuses by: an option the table does
 * not list for a backend is named in that backend's `UnsupportedOptionsError`, and one it lists is
 * not (no hand-kept list beside it can disagree).
 */
import { describe, expect, it } from "vitest";
// The validators answer options beyond the plain ones from the options schema, loaded on every
// public path (backendFor, loadBackend); here, by importing it.
import "../../../src/options-schema.js";
import { acpUnsupportedOptions } from "../../../src/backends/acp/validate.js";
import { validateClaudeOptions } from "../../../src/backends/claude/validate.js";
import { codexUnsupportedOptions } from "../../../src/backends/codex/validate.js";
import { cursorUnsupportedOptions } from "../../../src/backends/cursor/validate.js";
import { UnsupportedOptionsError } from "../../../src/errors.js";
import type { ResolvedOptions } from "../../../src/options/resolved.js";
import {
  BACKEND_KINDS,
  type BackendKind,
  OPTION_NAMES,
  OPTION_SUPPORT,
  type OptionName,
  refusedOptions,
  runtimeBackends,
} from "../../../src/options/support.js";

/** Every option set at once (an empty object each: these checks read names, not values). */
const everyOption = Object.fromEntries(OPTION_NAMES.map((name) => [name, {}])) as ResolvedOptions;

const refusedBy: Record<Exclude<BackendKind, "claude">, (o: ResolvedOptions) => string[]> = {
  codex: codexUnsupportedOptions,
  cursor: cursorUnsupportedOptions,
  acp: acpUnsupportedOptions,
};

describe("OPTION_SUPPORT drives the run-time refusals", () => {
  for (const backend of ["codex", "cursor", "acp"] as const) {
    it(`${backend} refuses exactly the options the table does not list for it`, () => {
      const refused = refusedBy[backend](everyOption);
      expect([...refused].sort()).toEqual([...refusedOptions(backend)].sort());
      for (const name of OPTION_NAMES) {
        expect(refused.includes(name), name).toBe(!runtimeBackends(name).includes(backend));
      }
    });
  }

  it("claude refuses the other backends' sections and the official options that cannot apply", () => {
    const refused: OptionName[] = refusedOptions("claude");
    expect([...refused].sort()).toEqual(["acp", "codex", "cursor", "executable", "executableArgs"]);
    for (const name of refused) {
      const error = (() => {
        try {
          validateClaudeOptions({ [name]: name === "executable" ? "node" : {} });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, name).toBeInstanceOf(UnsupportedOptionsError);
      expect((error as UnsupportedOptionsError).options).toEqual([name]);
    }
  });

  it("lists every backend for the neutral core, and only known backends anywhere", () => {
    for (const name of ["cwd", "env", "signal", "resume", "maxTurns", "timeoutMs"] as const) {
      expect(runtimeBackends(name), name).toEqual(BACKEND_KINDS);
    }
    for (const name of OPTION_NAMES) {
      for (const backend of runtimeBackends(name)) expect(BACKEND_KINDS).toContain(backend);
    }
    expect(OPTION_SUPPORT.hooks).toEqual(["claude"]);
  });
});
