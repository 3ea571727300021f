/**
 * The import graph of `src/`, read with the TypeScript compiler API: every `import` and `export …
 * from` (type-only ones included) and every `import()` of a relative module, resolved to a file.
 */
import { readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const SRC = resolve(import.meta.dirname, "..", "..", "src");

/** Every `.ts` file under `src/`, as a path relative to it (`process/child.ts`). */
export function sourceFiles(root = SRC): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
        files.push(relative(root, path).split("\\").join("/"));
    }
  };
  walk(root);
  return files.sort();
}

/** One import of one of our modules by another. */
export interface ImportEdge {
  from: string;
  to: string;
  /** `import type` / `export type` (or every name imported as a type). */
  typeOnly: boolean;
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  allowImportingTsExtensions: false,
};

/** The edges between files of `src/` (imports of packages and Node built-ins are left out). */
export function importGraph(root = SRC): Map<string, ImportEdge[]> {
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const graph = new Map<string, ImportEdge[]>();
  for (const file of sourceFiles(root)) {
    const path = join(root, file);
    const text = ts.sys.readFile(path) ?? "";
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
    const edges: ImportEdge[] = [];
    const add = (specifier: string, typeOnly: boolean): void => {
      if (!specifier.startsWith(".")) return;
      const resolved = ts.resolveModuleName(specifier, path, COMPILER_OPTIONS, host).resolvedModule;
      const target = resolved?.resolvedFileName ?? resolve(dirname(path), specifier.replace(/\.js$/, ".ts"));
      const to = relative(root, target).split("\\").join("/");
      if (!to.startsWith("..")) edges.push({ from: file, to, typeOnly });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const typeOnly =
          clause?.isTypeOnly === true ||
          (clause !== undefined &&
            clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly));
        add(node.moduleSpecifier.text, typeOnly);
      } else if (
        ts.isExportDeclaration(node) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        add(node.moduleSpecifier.text, node.isTypeOnly);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        add(node.arguments[0].text, false);
      } else if (ts.isImportTypeNode(node)) {
        const literal = ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined;
        if (literal && ts.isStringLiteral(literal)) add(literal.text, true);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(file, edges);
  }
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself): the cycles. */
export function importCycles(graph: Map<string, ImportEdge[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const strong = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const { to: w } of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (graph.get(v) ?? []).some((edge) => edge.to === v);
      if (component.length > 1 || selfLoop) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strong(v);
  return cycles;
}
