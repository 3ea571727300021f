/**
 * Recovering the command an agent meant from the shell wrapper a CLI ran it in. Codex reports
 * `/bin/bash -lc 'npm --version'` (or the argv of it); the agent asked for `npm --version`, and that
 * is what a permission rule or a log should see.
 */

const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"]);

/** The command as the agent meant it, and the argv the CLI ran when that differs. */
export interface UnwrappedCommand {
  command: string;
  argv?: string[];
}

/**
 * Unwraps `<shell> [-l…]c '<script>'` (also behind `/usr/bin/env`), given as one command line or
 * as an argv. Anything else is returned as it came (an argv joined with shell quoting).
 */
export function unwrapShellCommand(command: string | readonly string[]): UnwrappedCommand {
  const argv = typeof command === "string" ? splitShellWords(command) : [...command];
  const script = argv && wrappedScript(argv);
  if (argv && script !== undefined) return { command: script, argv };
  if (typeof command === "string") return { command };
  return { command: shellJoin(command), argv: [...command] };
}

function wrappedScript(argv: string[]): string | undefined {
  let i = 0;
  if (basename(argv[0] ?? "") === "env") i = 1;
  if (!SHELLS.has(basename(argv[i] ?? ""))) return undefined;
  i++;
  // Flags such as -l, -i, then one that ends in `c` (`-c`, `-lc`); the script follows it. Any
  // words after the script are the script's $0, $1…: keep them out of the meant command only
  // when there are none, otherwise the wrapper is not a plain one and stays visible.
  while (i < argv.length && /^-[a-z]+$/.test(argv[i] ?? "")) {
    const flag = argv[i] as string;
    if (flag.endsWith("c")) return i + 2 === argv.length ? argv[i + 1] : undefined;
    i++;
  }
  return undefined;
}

function basename(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? path : path.slice(slash + 1);
}

/**
 * Splits a command line into words as a POSIX shell would (single quotes, double quotes with
 * backslash escapes, backslashes outside quotes). `undefined` for an unterminated quote or for
 * anything a word splitter cannot decide alone (`$(…)`, backticks at top level are kept as text).
 */
export function splitShellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i] as string;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return undefined;
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i++;
      let closed = false;
      while (i < line.length) {
        const c = line[i] as string;
        if (c === '"') {
          closed = true;
          i++;
          break;
        }
        if (c === "\\" && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1] as string)) {
          word += line[i + 1];
          i += 2;
        } else {
          word += c;
          i++;
        }
      }
      if (!closed) return undefined;
      inWord = true;
    } else if (ch === "\\") {
      if (i + 1 >= line.length) return undefined;
      word += line[i + 1];
      inWord = true;
      i += 2;
    } else if (ch === " " || ch === "\t" || ch === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
    } else {
      word += ch;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Joins an argv into one command line, quoting words that need it. */
export function shellJoin(argv: readonly string[]): string {
  return argv
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`))
    .join(" ");
}
