// Issue 26: the scheduler's facts take no callbacks. Every verdict (receipts, trace records,
// attestations) and the id order reach core/schedule/facts.ts as data that an op computed first,
// so `kbz next`, the dashboard's queue and the demo cannot differ by a callback one of them left
// out. Read on the syntax tree: no member of FactsOptions has a function type, or a type alias to one.
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { SRC } from "../../helpers/sources.ts";

/** Members of `name` in `file` whose type is a function, directly or through an alias `file` declares. */
export function functionMembers(file: string, text: string, name: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const aliases = new Map<string, ts.TypeNode>();
  let members: ts.NodeArray<ts.TypeElement> | null = null;
  sf.forEachChild((n) => {
    if (ts.isTypeAliasDeclaration(n)) aliases.set(n.name.text, n.type);
    if (ts.isInterfaceDeclaration(n) && n.name.text === name) members = n.members;
  });
  const isFunction = (t: ts.TypeNode | undefined): boolean => {
    if (!t) return false;
    if (ts.isFunctionTypeNode(t) || ts.isConstructorTypeNode(t)) return true;
    if (ts.isUnionTypeNode(t) || ts.isIntersectionTypeNode(t)) return t.types.some(isFunction);
    if (ts.isParenthesizedTypeNode(t)) return isFunction(t.type);
    if (ts.isTypeReferenceNode(t))
      return /Compare$|Callback$|Fn$/.test(t.typeName.getText()) || isFunction(aliases.get(t.typeName.getText()));
    return false;
  };
  const out: string[] = [];
  for (const m of (members ?? []) as ts.TypeElement[]) {
    if (ts.isMethodSignature(m) || (ts.isPropertySignature(m) && isFunction(m.type))) out.push(m.name!.getText());
  }
  if (members === null) out.push(`(no interface ${name})`);
  return out;
}

test("the checker finds a callback option, through an alias too", () => {
  expect(
    functionMembers(
      "a.ts",
      "interface O { a: number; b?: (x: string) => boolean; c(): void; d: Cb | null }\ntype Cb = (f: string) => Set<string>;",
      "O",
    ),
  ).toEqual(["b", "c", "d"]);
  expect(functionMembers("a.ts", "interface O { compare: IdCompare }", "O")).toEqual(["compare"]);
  expect(functionMembers("a.ts", "interface O { order: IdOrder; trace: TraceData }", "O")).toEqual([]);
});

test("core/schedule/facts.ts FactsOptions holds data only", () => {
  const file = path.join(SRC, "core", "schedule", "facts.ts");
  expect(functionMembers(file, fs.readFileSync(file, "utf8"), "FactsOptions")).toEqual([]);
});
