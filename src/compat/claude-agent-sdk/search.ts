/**
 * `CommandMatcher` and `FileIndex`: the fuzzy finders the official SDK exports (undeclared in its
 * `.d.ts`) for slash-command and `@`-file pickers. Same methods and result shapes; the ranking is
 * this module's own (subsequence matching with bonuses for prefixes, word starts and adjacency).
 */

/** A command offered to {@link CommandMatcher}. */
export type CommandMatcherItem = {
  name: string;
  displayName?: string;
  description?: string;
  aliases?: string[];
  [key: string]: unknown;
};

/** Options of {@link CommandMatcher.search}. */
export type CommandMatcherSearchOptions<T> = {
  /** Extra rank for a candidate (higher first among equally good matches). */
  getScoreBoost?: (candidate: T) => number;
  /** Keeps only the candidates it returns `true` for. */
  filter?: (candidate: T) => boolean;
};

/** A file found by {@link FileIndex.search}. */
export type FileIndexResult = {
  path: string;
  /** Higher is better. */
  score: number;
  /** Indices in `path` of the matched characters (empty for the top-level listing). */
  positions: number[];
};

/**
 * Fuzzy subsequence match of `query` in `text`: the matched indices and a score (higher is better),
 * or `undefined`. Smart case: a query with upper-case letters matches case-sensitively.
 */
function fuzzy(query: string, text: string): { score: number; positions: number[] } | undefined {
  const hay = query !== query.toLowerCase() ? text : text.toLowerCase();
  const positions: number[] = [];
  let from = 0;
  let score = 0;
  for (const ch of query) {
    const at = hay.indexOf(ch, from);
    if (at === -1) return undefined;
    const previous = positions[positions.length - 1];
    if (previous !== undefined && at === previous + 1) score += 4;
    else if (previous !== undefined) score -= Math.min(at - previous - 1, 20);
    const before = at === 0 ? "/" : hay[at - 1];
    if (
      before === "/" ||
      before === "\\" ||
      before === "-" ||
      before === "_" ||
      before === "." ||
      before === ":"
    )
      score += 3;
    positions.push(at);
    from = at + ch.length;
  }
  return { score: score + query.length * 16 - Math.floor(text.length / 4), positions };
}

/** Ranks slash commands (or any named items) for a typed query. */
export class CommandMatcher<T extends CommandMatcherItem = CommandMatcherItem> {
  readonly #items: readonly T[];
  constructor(items: readonly T[]) {
    this.#items = [...items];
  }

  /** The candidates matching `query`, best first (every candidate for an empty query). */
  search(query: string, options: CommandMatcherSearchOptions<T> = {}): T[] {
    const q = String(query).trim().toLowerCase();
    const rows: { candidate: T; rank: number[] }[] = [];
    for (const [index, candidate] of this.#items.entries()) {
      if (options.filter && !options.filter(candidate)) continue;
      const names = [
        candidate.name,
        candidate.displayName ?? candidate.name,
        ...(candidate.aliases ?? []),
      ].map((n) => String(n).toLowerCase());
      let bucket: number;
      let fuzz = 0;
      if (q === "" || names.some((n) => n === q)) bucket = 0;
      else if (names.some((n) => n.startsWith(q))) bucket = 1;
      else if (names.some((n) => n.includes(q))) bucket = 2;
      else {
        const best = Math.max(...names.map((n) => fuzzy(q, n)?.score ?? Number.NEGATIVE_INFINITY));
        if (best > Number.NEGATIVE_INFINITY) {
          bucket = 3;
          fuzz = -best;
        } else if (
          String(candidate.description ?? "")
            .toLowerCase()
            .split(/[^a-z0-9]+/)
            .some((w) => w !== "" && w.startsWith(q.replace(/[^a-z0-9]/g, "")))
        ) {
          bucket = 4;
        } else continue;
      }
      rows.push({ candidate, rank: [bucket, -(options.getScoreBoost?.(candidate) ?? 0), fuzz, index] });
    }
    rows.sort((a, b) => {
      for (let i = 0; i < a.rank.length; i++) {
        const d = (a.rank[i] ?? 0) - (b.rank[i] ?? 0);
        if (d !== 0) return d;
      }
      return 0;
    });
    return rows.map((r) => r.candidate);
  }
}

/** An in-memory index of relative file paths for fuzzy `@`-file completion. */
export class FileIndex {
  #paths: string[] = [];
  #generation = 0;

  /** Replaces the index with `paths` (empty entries and duplicates dropped). */
  loadFromFileList(paths: readonly string[]): void {
    this.#generation++;
    this.#paths = [...new Set(paths.filter((p) => typeof p === "string" && p.length > 0))];
  }

  /**
   * Builds the index without blocking the event loop for long: `queryable` settles once searches
   * see the paths, `done` with `false` when a later load replaced this one.
   */
  loadFromFileListAsync(paths: readonly string[]): { queryable: Promise<void>; done: Promise<boolean> } {
    const generation = ++this.#generation;
    let markQueryable: () => void = () => undefined;
    const queryable = new Promise<void>((resolve) => {
      markQueryable = resolve;
    });
    const done = (async () => {
      const seen = new Set<string>();
      const out: string[] = [];
      for (let i = 0; i < paths.length; i++) {
        const p = paths[i];
        if (typeof p === "string" && p.length > 0 && !seen.has(p)) {
          seen.add(p);
          out.push(p);
        }
        if ((i & 4095) === 4095) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.#generation !== generation) {
            markQueryable();
            return false;
          }
        }
      }
      this.#paths = out;
      markQueryable();
      return true;
    })();
    return { queryable, done };
  }

  /** The `limit` best paths for `query`; for an empty query, the top-level entries. */
  search(query: string, limit: number): FileIndexResult[] {
    if (!(limit > 0)) return [];
    if (query.length === 0) {
      const top = new Set<string>();
      for (const p of this.#paths) {
        const cut = p.search(/[/\\]/);
        top.add(cut === -1 ? p : p.slice(0, cut));
        if (top.size >= 100) break;
      }
      return [...top]
        .sort((a, b) => a.length - b.length || a.localeCompare(b))
        .slice(0, limit)
        .map((path) => ({ path, score: 0, positions: [] }));
    }
    const q = query.slice(0, 64);
    const found: FileIndexResult[] = [];
    for (const path of this.#paths) {
      const m = fuzzy(q, path);
      if (m) found.push({ path, score: m.score, positions: m.positions });
    }
    found.sort((a, b) => b.score - a.score || a.path.length - b.path.length);
    return found.slice(0, limit);
  }
}
