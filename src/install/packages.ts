/**
 * What the installer installs: the vendor npm package of each CLI and where its native binary
 * ends up inside an `npm install --prefix <dir>` tree.
 */
import { join } from "node:path";

/** The CLIs the installer can fetch. Cursor Agent is not on npm (it ships its own installer). */
export type InstallableBackend = "claude" | "codex";

/** Every backend {@link installCli} accepts. */
export const INSTALLABLE_BACKENDS: readonly InstallableBackend[] = ["claude", "codex"];

/** True when `value` names a backend the installer can fetch. */
export function isInstallableBackend(value: unknown): value is InstallableBackend {
  return value === "claude" || value === "codex";
}

/** How one vendor CLI is packaged on npm. */
export interface CliPackage {
  /** The npm package to install, e.g. `@anthropic-ai/claude-code`. */
  readonly npmPackage: string;
  /** A human name for messages. */
  readonly displayName: string;
  /** The command name (`claude`, `codex`). */
  readonly command: string;
  /**
   * Where the native binary may be, relative to the install prefix, best first. The vendor packages
   * ship the binary in a per-platform optional dependency that npm picks by `os`/`cpu`/`libc`.
   */
  binaryCandidates(platform?: NodeJS.Platform, arch?: string): string[];
}

const exe = (platform: NodeJS.Platform, name: string) => (platform === "win32" ? `${name}.exe` : name);

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

/** The vendor packages, by backend. */
export const CLI_PACKAGES: Readonly<Record<InstallableBackend, CliPackage>> = {
  claude: {
    npmPackage: "@anthropic-ai/claude-code",
    displayName: "Claude Code",
    command: "claude",
    binaryCandidates(platform = process.platform, arch = process.arch) {
      const base = join("node_modules", "@anthropic-ai", `claude-code-${platform}-${arch}`);
      const binary = exe(platform, "claude");
      // Only the variant matching the machine's libc is installed, so listing both is safe.
      const platformDirs = platform === "linux" ? [base, `${base}-musl`] : [base];
      return platformDirs.map((dir) => join(dir, binary));
    },
  },
  codex: {
    npmPackage: "@openai/codex",
    displayName: "Codex",
    command: "codex",
    binaryCandidates(platform = process.platform, arch = process.arch) {
      const triple = CODEX_TRIPLES[`${platform}-${arch}`];
      if (!triple) return [];
      const os = platform === "android" ? "linux" : platform;
      return [
        join(
          "node_modules",
          "@openai",
          `codex-${os}-${arch}`,
          "vendor",
          triple,
          "bin",
          exe(platform, "codex"),
        ),
      ];
    },
  },
};
