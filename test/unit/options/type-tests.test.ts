/**
 * Runs the type-level cases of `test/types/` (files of `// @ts-expect-error` cases, never run) through
 * the TypeScript checker with the repository's compiler options (`test/types/tsconfig.json`, which
 * extends the main one; the main tsconfig leaves the folder out so each file is checked once).
 * Any error fails the test, and an unused `@ts-expect-error` is an error: that is what proves a
 * case is rejected. A sentinel file with one deliberately unused directive checks that the check
 * itself still notices.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const TYPES_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../types");
const SENTINEL = join(TYPES_DIR, "__sentinel__.ts");
const SENTINEL_TEXT = [
  'import type { CodexAgentOptions } from "../../src/options.js";',
  "// @ts-expect-error: an option Codex does take, so this directive is unused",
  'export const ok: CodexAgentOptions = { backend: "codex", cwd: "/" };',
  "",
].join("\n");

/** Every diagnostic of the type-test files (and the sentinel), as `file(line): TSnnnn message`. */
function diagnostics(): string[] {
  const configPath = join(TYPES_DIR, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, TYPES_DIR);
  const host = ts.createCompilerHost(parsed.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === SENTINEL
      ? ts.createSourceFile(fileName, SENTINEL_TEXT, languageVersion)
      : getSourceFile(fileName, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName === SENTINEL || fileExists(fileName);
  const program = ts.createProgram({
    rootNames: [...parsed.fileNames, SENTINEL],
    options: { ...parsed.options, noEmit: true },
    host,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return `TS${d.code} ${text}`;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}(${line + 1}): TS${d.code} ${text}`;
  });
}

describe("type-level tests (test/types)", () => {
  it("the folder holds the cases of options typed per backend", () => {
    expect(readdirSync(TYPES_DIR)).toContain("options.ts");
  });

  it("every case compiles as written: each @ts-expect-error is an error, and nothing else is", () => {
    const found = diagnostics();
    // The sentinel's unused directive is reported: the check sees an accepted "rejection".
    expect(found.filter((d) => d.startsWith(SENTINEL))).toEqual([
      expect.stringMatching(/^\S+\(2\): TS2578 Unused '@ts-expect-error' directive\.$/),
    ]);
    expect(found.filter((d) => !d.startsWith(SENTINEL))).toEqual([]);
  }, 300_000);
});
