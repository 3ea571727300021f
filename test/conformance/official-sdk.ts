/**
 * Reads the official `@anthropic-ai/claude-agent-sdk` declarations (installed as a devDependency)
 * with the TypeScript compiler API: the keys of `Options`, the methods of `Query`, and the
 * `type` / `subtype` of every member of `SDKMessage`. Nothing here is typed by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The official SDK's version and its `sdk.d.ts`, from the nearest `node_modules` (its package
 * exports neither `package.json` nor the declarations as subpaths).
 */
export function officialSdk(): { version: string; dts: string } {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const root = join(dir, "node_modules", "@anthropic-ai", "claude-agent-sdk");
    if (existsSync(join(root, "package.json"))) {
      const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
      return { version, dts: join(root, "sdk.d.ts") };
    }
    if (dirname(dir) === dir)
      throw new Error("@anthropic-ai/claude-agent-sdk is not installed (a devDependency)");
  }
}

/** One member of the official `SDKMessage` union, with the wire `type` / `subtype` values it allows. */
export interface OfficialMessage {
  name: string;
  types: string[];
  subtypes: string[];
}

/** What the official declarations list. */
export interface OfficialSurface {
  version: string;
  options: string[];
  queryMethods: string[];
  messages: OfficialMessage[];
}

/** Parses and type-checks the official `sdk.d.ts` and lists its surface. */
export function readOfficialSurface(): OfficialSurface {
  const { version, dts } = officialSdk();
  const program = ts.createProgram([dts], {
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dts);
  if (!source) throw new Error(`cannot read ${dts}`);
  const declarations = new Map<string, ts.Statement>();
  for (const statement of source.statements) {
    if ((ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) && statement.name) {
      declarations.set(statement.name.text, statement);
    }
  }
  const declared = (name: string) => {
    const node = declarations.get(name);
    if (!node || !(ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node))) {
      throw new Error(`sdk.d.ts declares no ${name}`);
    }
    return checker.getTypeAtLocation(node.name);
  };

  const options = checker.getPropertiesOfType(declared("Options")).map((p) => p.name);
  const queryNode = declarations.get("Query");
  if (!queryNode || !ts.isInterfaceDeclaration(queryNode))
    throw new Error("sdk.d.ts declares no Query interface");
  // The interface's own members: the AsyncGenerator methods it extends are the iteration protocol.
  const queryMethods = queryNode.members.flatMap((m) =>
    m.name && ts.isIdentifier(m.name) ? [m.name.text] : [],
  );

  const union = declarations.get("SDKMessage");
  if (!union || !ts.isTypeAliasDeclaration(union) || !ts.isUnionTypeNode(union.type)) {
    throw new Error("sdk.d.ts declares no SDKMessage union");
  }
  const messages = union.type.types.map((member) => {
    const name = member.getText(source);
    const type = checker.getTypeFromTypeNode(member);
    return {
      name,
      types: literals(checker, type, "type", member),
      subtypes: literals(checker, type, "subtype", member),
    };
  });
  return { version, options, queryMethods, messages };
}

/** The string literal values a property may take across every constituent of `type`. */
function literals(checker: ts.TypeChecker, type: ts.Type, property: string, at: ts.Node): string[] {
  const values = new Set<string>();
  for (const part of type.isUnion() ? type.types : [type]) {
    const symbol = checker.getPropertyOfType(part, property);
    if (!symbol) continue;
    const propertyType = checker.getTypeOfSymbolAtLocation(symbol, at);
    for (const value of propertyType.isUnion() ? propertyType.types : [propertyType]) {
      if (value.isStringLiteral()) values.add(value.value);
    }
  }
  return [...values].sort();
}

/**
 * Every field path of the official `Settings` interface, at any depth: `a.b` for an object's
 * field, `a[]` for array elements, `a.*` for record values; union members' fields are merged.
 * Read from the declaration's syntax (the interface is self-contained, generated from the CLI's
 * settings JSON schema).
 */
export function readOfficialSettingsPaths(): string[] {
  const { dts } = officialSdk();
  const source = ts.createSourceFile(dts, readFileSync(dts, "utf8"), ts.ScriptTarget.ES2022, true);
  const settings = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "Settings",
  );
  if (!settings) throw new Error("sdk.d.ts declares no Settings interface");
  const paths = new Set<string>();
  const walkMembers = (members: ts.NodeArray<ts.TypeElement>, path: string) => {
    for (const member of members) {
      if (ts.isPropertySignature(member) && member.type) {
        const name = member.name;
        const key = ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText(source);
        const child = path ? `${path}.${key}` : key;
        paths.add(child);
        walk(member.type, child);
      } else if (ts.isIndexSignatureDeclaration(member) && member.type) {
        walk(member.type, `${path}.*`);
      }
    }
  };
  const walk = (node: ts.TypeNode, path: string): void => {
    if (ts.isParenthesizedTypeNode(node)) walk(node.type, path);
    else if (ts.isUnionTypeNode(node)) for (const t of node.types) walk(t, path);
    else if (ts.isArrayTypeNode(node)) walk(node.elementType, `${path}[]`);
    else if (ts.isTupleTypeNode(node)) {
      for (const e of node.elements) walk(ts.isRestTypeNode(e) ? e.type : e, `${path}[]`);
    } else if (ts.isTypeLiteralNode(node)) walkMembers(node.members, path);
  };
  walkMembers(settings.members, "");
  return [...paths].sort();
}
