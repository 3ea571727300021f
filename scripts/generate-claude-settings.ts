/**
 * Generates `src/backends/claude/settings.generated.ts` — the `ClaudeSettings` type and its loose zod schema —
 * from the `Settings` interface of the installed official `@anthropic-ai/claude-agent-sdk`, which
 * that SDK itself generates from the Claude Code CLI's settings JSON schema. Run it after upgrading
 * the official SDK (the conformance test fails until you do):
 *
 *   npx tsx scripts/generate-claude-settings.ts
 *
 * Every object becomes a loose object: known fields are typed and checked, unknown ones pass
 * through to the CLI (see `warnUnknownNestedFields`). A type construct the script does not know
 * stops it, so a schema change is never silently mistyped.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const sdkRoot = join(root, "node_modules", "@anthropic-ai", "claude-agent-sdk");
const dts = join(sdkRoot, "sdk.d.ts");
if (!existsSync(dts)) throw new Error("@anthropic-ai/claude-agent-sdk is not installed (a devDependency)");
const { version } = JSON.parse(readFileSync(join(sdkRoot, "package.json"), "utf8")) as { version: string };
const source = ts.createSourceFile(dts, readFileSync(dts, "utf8"), ts.ScriptTarget.ES2022, true);
const settings = source.statements.find(
  (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "Settings",
);
if (!settings) throw new Error("sdk.d.ts declares no Settings interface");

const fail = (node: ts.Node, what: string): never => {
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  throw new Error(`sdk.d.ts:${line + 1}: ${what}: ${node.getText(source).slice(0, 80)}`);
};

const keyText = (name: ts.PropertyName): string => {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return fail(name, "unsupported property name");
};
const quoteKey = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));

/** The first sentence of a member's doc comment, on one line and at most ~160 characters. */
function summary(member: ts.Node): string | undefined {
  const docs = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
  const text = docs
    .map((d) => (typeof d.comment === "string" ? d.comment : ts.getTextOfJSDocComment(d.comment)))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return undefined;
  const sentence = /^(.+?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  const short = sentence.length > 160 ? `${sentence.slice(0, 157).replace(/\s+\S*$/, "")}…` : sentence;
  return short.replace(/\*\//g, "*\\/");
}

interface Emitted {
  type: string;
  zod: string;
}

function members(node: ts.TypeLiteralNode | ts.InterfaceDeclaration, indent: string, docs: boolean): Emitted {
  const typeLines: string[] = [];
  const zodLines: string[] = [];
  let index: Emitted | undefined;
  for (const member of node.members) {
    if (ts.isPropertySignature(member) && member.type) {
      const key = keyText(member.name);
      const inner = emit(member.type, `${indent}  `);
      const optional = member.questionToken !== undefined;
      const doc = docs ? summary(member) : undefined;
      if (doc) typeLines.push(`${indent}  /** ${doc} */`);
      typeLines.push(`${indent}  ${quoteKey(key)}${optional ? "?" : ""}: ${inner.type};`);
      zodLines.push(`${indent}  ${quoteKey(key)}: ${optional ? `z.optional(${inner.zod})` : inner.zod},`);
    } else if (ts.isIndexSignatureDeclaration(member) && member.type) {
      index = emit(member.type, `${indent}  `);
    } else {
      fail(member, "unsupported member");
    }
  }
  if (zodLines.length === 0) {
    if (!index) return { type: "Record<string, never>", zod: "z.object({})" };
    return { type: `{ [key: string]: ${index.type} }`, zod: `z.record(z.string(), ${index.zod})` };
  }
  // Known fields typed, anything else passed through (an index signature's values are not checked:
  // `unknown` in every case of this schema).
  typeLines.push(`${indent}  [key: string]: unknown;`);
  return {
    type: `{\n${typeLines.join("\n")}\n${indent}}`,
    zod: `z.looseObject({\n${zodLines.join("\n")}\n${indent}})`,
  };
}

function emit(node: ts.TypeNode, indent: string): Emitted {
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword:
      return { type: "string", zod: "z.string()" };
    case ts.SyntaxKind.NumberKeyword:
      return { type: "number", zod: "z.number()" };
    case ts.SyntaxKind.BooleanKeyword:
      return { type: "boolean", zod: "z.boolean()" };
    case ts.SyntaxKind.UnknownKeyword:
    case ts.SyntaxKind.AnyKeyword:
      return { type: "unknown", zod: "z.unknown()" };
  }
  if (ts.isParenthesizedTypeNode(node)) return emit(node.type, indent);
  if (ts.isLiteralTypeNode(node)) {
    const lit = node.literal;
    if (ts.isStringLiteral(lit))
      return { type: JSON.stringify(lit.text), zod: `z.literal(${JSON.stringify(lit.text)})` };
    if (ts.isNumericLiteral(lit)) return { type: lit.text, zod: `z.literal(${lit.text})` };
    if (lit.kind === ts.SyntaxKind.TrueKeyword) return { type: "true", zod: "z.literal(true)" };
    if (lit.kind === ts.SyntaxKind.FalseKeyword) return { type: "false", zod: "z.literal(false)" };
    if (lit.kind === ts.SyntaxKind.NullKeyword) return { type: "null", zod: "z.null()" };
    return fail(node, "unsupported literal");
  }
  if (ts.isArrayTypeNode(node)) {
    const element = emit(node.elementType, indent);
    const wrap = ts.isUnionTypeNode(node.elementType) || ts.isParenthesizedTypeNode(node.elementType);
    return { type: wrap ? `(${element.type})[]` : `${element.type}[]`, zod: `z.array(${element.zod})` };
  }
  if (ts.isTupleTypeNode(node)) {
    const items: Emitted[] = [];
    let rest: Emitted | undefined;
    for (const element of node.elements) {
      if (ts.isRestTypeNode(element) && ts.isArrayTypeNode(element.type))
        rest = emit(element.type.elementType, indent);
      else if (ts.isNamedTupleMember(element) || ts.isRestTypeNode(element))
        fail(element, "unsupported tuple element");
      else items.push(emit(element, indent));
    }
    const type = `[${[...items.map((i) => i.type), ...(rest ? [`...${rest.type}[]`] : [])].join(", ")}]`;
    const zod = `z.tuple([${items.map((i) => i.zod).join(", ")}]${rest ? `, ${rest.zod}` : ""})`;
    return { type, zod };
  }
  if (ts.isUnionTypeNode(node)) {
    const parts = node.types.map((t) => emit(t, indent));
    const type = parts.map((p) => p.type).join(" | ");
    const strings = node.types.every((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal));
    if (strings) return { type, zod: `z.enum([${parts.map((p) => p.type).join(", ")}])` };
    return { type, zod: `z.union([${parts.map((p) => p.zod).join(", ")}])` };
  }
  if (ts.isTypeLiteralNode(node)) return members(node, indent, false);
  return fail(node, "unsupported type");
}

const top = members(settings, "", true);
const keys = settings.members.flatMap((m) => (ts.isPropertySignature(m) ? [keyText(m.name)] : []));

const out = `// Generated by scripts/generate-claude-settings.ts from the \`Settings\` interface of
// @anthropic-ai/claude-agent-sdk ${version} (itself generated from the Claude Code CLI's settings JSON
// schema). Do not edit: upgrade the official SDK and run \`npx tsx scripts/generate-claude-settings.ts\`.

import * as z from "zod/mini";

/**
 * Claude Code settings, as \`settings\` (\`--settings\`) and \`managedSettings\`
 * (\`--managed-settings\`) take them: every field the CLI's settings schema of official SDK
 * ${version} declares, typed. The CLI owns this schema, so a field this SDK does not know is passed
 * through unchanged (with a one-time warning) rather than refused.
 */
export interface ClaudeSettings ${top.type}

/** The top-level fields of {@link ClaudeSettings}, in the CLI schema's order. */
export const CLAUDE_SETTINGS_KEYS: readonly string[] = ${JSON.stringify(keys)};

/**
 * Loose runtime schema of {@link ClaudeSettings}: known fields are checked, unknown ones kept.
 * \`unknownNestedFields\` walks it to name the unknown ones. Built on first use: its ~1,500
 * schemas cost ~10 ms, which a program that never passes settings should not pay at import.
 */
export function claudeSettingsSchema() {
  cached ??= build();
  return cached;
}

let cached: ReturnType<typeof build> | undefined;

function build() {
  return ${top.zod};
}
`;
const target = join(root, "src", "claude-settings.generated.ts");
writeFileSync(target, out);
execFileSync(join(root, "node_modules", ".bin", "biome"), ["format", "--write", target], {
  stdio: "inherit",
});
console.log(`wrote ${target}: ${keys.length} top-level settings from official SDK ${version}`);
