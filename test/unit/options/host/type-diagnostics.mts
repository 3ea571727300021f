/**
 * Prints, as one JSON array on stdout, every diagnostic of the type-test files of `test/types/`
 * (and a sentinel with one deliberately unused `@ts-expect-error`), as `file(line): TSnnnn message`.
 * Run in a process of its own by type-tests.test.ts: building the TypeScript program is seconds of
 * synchronous work, which inside a vitest worker would block its RPC with the runner.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const TYPES_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../types");
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

console.log(JSON.stringify(diagnostics()));
