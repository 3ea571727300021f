/**
 * Where `@openai/codex` keeps its native binary for a platform: needed by Codex discovery and by
 * the CLI installer, so it is written once here.
 */

/** The Rust target triples `@openai/codex` ships, by `<platform>-<arch>` (as its launcher maps them). */
const CODEX_TRIPLES: Record<string, string | undefined> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "android-x64": "x86_64-unknown-linux-musl",
  "android-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
  "win32-arm64": "aarch64-pc-windows-msvc",
};

/**
 * The npm platform package and the Rust target triple of this machine, or `undefined` on a
 * platform Codex does not ship for.
 */
export function codexPlatformPackage(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): { pkg: string; triple: string; binary: string } | undefined {
  const triple = CODEX_TRIPLES[`${platform}-${arch}`];
  if (!triple) return undefined;
  const os = platform === "android" ? "linux" : platform;
  return {
    pkg: `@openai/codex-${os}-${arch}`,
    triple,
    binary: platform === "win32" ? "codex.exe" : "codex",
  };
}
