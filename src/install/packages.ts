/**
 * What the installer installs: the vendor npm package of each CLI and where its native binary
 * ends up inside an `npm install --prefix <dir>` tree.
 */

import { join } from "node:path";
import { codexPlatformPackage } from "./codex-platform.js";

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
      const target = codexPlatformPackage(platform, arch);
      if (!target) return [];
      return [join("node_modules", ...target.pkg.split("/"), "vendor", target.triple, "bin", target.binary)];
    },
  },
};
