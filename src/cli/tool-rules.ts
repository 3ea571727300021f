/**
 * `--allow` / `--deny` rules of the `code-agent` command, matched against one tool call. The syntax
 * is Claude Code's (`Bash`, `Bash(npm test)`, `Bash(npm test:*)`, `Read(src/**)`, `mcp__server`),
 * and the matching is never looser than Claude Code's own engine:
 *
 * - a prefix rule (`Bash(npm test:*)`, `Bash(npm *)`) matches a command only when the command is one
 *   simple command: anything that chains, pipes, substitutes, redirects or backgrounds (`;`, `&`,
 *   `|`, a newline, `` ` ``, `$(`, `<`, `>`) never matches a prefix, and the prefix must end at a
 *   word boundary (`npm test:*` does not cover `npm testing`);
 * - an exact rule (`Bash(npm test)`) matches that command string only;
 * - a path rule is a glob over the path made absolute against the working directory and
 *   normalised, so `Read(src/*)` never covers `src/../../etc/passwd`; `*` stays within one
 *   directory, `**` crosses directories; `//abs/path` is absolute, `~/path` is in the home directory;
 * - a URL rule is `domain:example.com` (that host exactly) or the exact URL.
 *
 * Symbolic links are not resolved (the agent may create them): allowing a path allows what it names
 * at the time of the call.
 */
import { homedir } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";

const COMMAND_KEYS = ["command", "cmd"] as const;
const PATH_KEYS = ["file_path", "path", "notebook_path"] as const;

/** Shell syntax that makes a command more than one simple command (or sends its output elsewhere). */
const COMPOUND = /[;&|\n\r`<>]|\$\(/;

/**
 * True when `rule` covers this call of `toolName` with `input`. `cwd` is the agent's working
 * directory: relative paths in rules and inputs are resolved against it.
 */
export function matchesToolRule(
  rule: string,
  toolName: string,
  input: Record<string, unknown>,
  cwd: string,
): boolean {
  const match = /^([^()]+?)(?:\((.*)\))?$/s.exec(rule.trim());
  if (!match) return false;
  const [, name = "", content] = match;
  const nameMatches = name === toolName || (name.startsWith("mcp__") && toolName.startsWith(`${name}__`));
  if (!nameMatches) return false;
  if (content === undefined || content === "" || content === "*") return true;
  const command = firstString(input, COMMAND_KEYS);
  if (command !== undefined) return matchesCommand(content, command);
  const path = firstString(input, PATH_KEYS);
  if (path !== undefined) return matchesPath(content, path, cwd);
  if (typeof input.url === "string") return matchesUrl(content, input.url);
  if (typeof input.pattern === "string") return input.pattern === content;
  return false;
}

function firstString(input: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

function matchesCommand(content: string, command: string): boolean {
  const subject = command.trim();
  const prefix = content.endsWith(":*")
    ? content.slice(0, -2)
    : content.endsWith(" *")
      ? content.slice(0, -2)
      : undefined;
  if (prefix === undefined) return subject === content.trim();
  if (COMPOUND.test(subject)) return false;
  const head = prefix.trim();
  if (head === "") return false;
  return subject === head || (subject.startsWith(head) && /\s/.test(subject.charAt(head.length)));
}

function matchesPath(content: string, path: string, cwd: string): boolean {
  if (path.includes("\0")) return false;
  const subject = resolve(cwd, expandHome(path));
  return globToRegExp(resolveRulePath(content, cwd)).test(subject);
}

/** A rule's path made absolute: `//x` is `/x`, `~/x` is in the home directory, the rest is under `cwd`. */
function resolveRulePath(content: string, cwd: string): string {
  if (content.startsWith("//")) return resolveKeepingGlob("/", content.slice(1));
  if (content.startsWith("~/")) return resolveKeepingGlob(homedir(), content.slice(2));
  return resolveKeepingGlob(cwd, isAbsolute(content) ? content.slice(1) : content);
}

/** `resolve()` that keeps a trailing `/**` or `/*` (resolve would not touch them, but normalises `..`). */
function resolveKeepingGlob(base: string, pattern: string): string {
  const resolved = resolve(base, pattern);
  return pattern.endsWith(sep) ? `${resolved}${sep}**` : resolved;
}

function expandHome(path: string): string {
  return path === "~" ? homedir() : path.startsWith("~/") ? `${homedir()}/${path.slice(2)}` : path;
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob.charAt(i);
    if (char === "*") {
      if (glob.charAt(i + 1) === "*") {
        i++;
        // `dir/**` covers dir's whole tree (dir itself included); `**` elsewhere crosses directories.
        if (source.endsWith("/") && i === glob.length - 1) {
          source = `${source.slice(0, -1)}(?:/.*)?`;
          continue;
        }
        source += ".*";
        continue;
      }
      source += "[^/]*";
      continue;
    }
    if (char === "?") {
      source += "[^/]";
      continue;
    }
    source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

function matchesUrl(content: string, url: string): boolean {
  if (content.startsWith("domain:")) {
    try {
      return new URL(url).hostname.toLowerCase() === content.slice("domain:".length).trim().toLowerCase();
    } catch {
      return false;
    }
  }
  return url === content;
}
