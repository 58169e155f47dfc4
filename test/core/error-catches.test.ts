// Errors are told apart by kind (issue 26; core/errors.ts), never by a list of classes or a name
// string. This reads src/ as TypeScript syntax trees and fails on an `a instanceof XError || b
// instanceof YError` chain and on a comparison of an error's `.name` with a string. kindOf() in
// core/errors.ts is where kinds are given to errors kbz does not own (JavaScript's TypeError,
// ReferenceError, RangeError; yargs' YError by name), so it alone is not scanned.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { isDeliberate, KbzError, UsageError } from "../../src/core/errors.ts";
import { sources, SRC } from "../helpers/sources.ts";

const ALLOWED_NAMES = new Set(["YError"]);

/** `file:line: what` for each class-list catch or error-name test in `text`. */
export function classCatches(file: string, text: string): string[] {
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: string[] = [];
  const at = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const errorClass = (n: ts.Expression): string | null => {
    const e = ts.isParenthesizedExpression(n) ? n.expression : n;
    if (!ts.isBinaryExpression(e) || e.operatorToken.kind !== ts.SyntaxKind.InstanceOfKeyword) return null;
    const name = e.right.getText();
    return /Error$|Refused$/.test(name) ? name : null;
  };
  /** The operands of one `||` chain, flattened. */
  const operands = (n: ts.Expression): ts.Expression[] => {
    const e = ts.isParenthesizedExpression(n) ? n.expression : n;
    return ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.BarBarToken
      ? [...operands(e.left), ...operands(e.right)]
      : [n];
  };
  const visit = (n: ts.Node) => {
    if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.BarBarToken &&
      !(ts.isBinaryExpression(n.parent) && n.parent.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    ) {
      const classes = operands(n)
        .map(errorClass)
        .filter((c): c is string => c !== null);
      if (classes.length >= 2)
        out.push(`${at(n)}: catches by class list (${classes.join(", ")}): use the error's kind`);
    }
    if (
      ts.isBinaryExpression(n) &&
      (n.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        n.operatorToken.kind === ts.SyntaxKind.EqualsEqualsToken)
    ) {
      for (const [side, other] of [
        [n.left, n.right],
        [n.right, n.left],
      ] as const) {
        if (
          ts.isPropertyAccessExpression(side) &&
          side.name.text === "name" &&
          ts.isStringLiteral(other) &&
          /Error$/.test(other.text) &&
          !ALLOWED_NAMES.has(other.text)
        ) {
          out.push(`${at(n)}: tells an error by its name string ("${other.text}"): use the error's kind or code`);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe("errors are caught by kind (issue 26)", () => {
  test("the scan finds a class list, a parenthesised one and a name string; a single class and a kind pass", () => {
    expect(classCatches("a.ts", "if (e instanceof ReadError || e instanceof UsageError) x();")).toEqual([
      "a.ts:1: catches by class list (ReadError, UsageError): use the error's kind",
    ]);
    expect(
      classCatches(
        "a.ts",
        "if (ok || (e instanceof A1Error) || (e instanceof Error && y) || e instanceof B2Error) x();",
      ),
    ).toEqual(["a.ts:1: catches by class list (A1Error, B2Error): use the error's kind"]);
    expect(classCatches("a.ts", 'if ((e as Error).name === "CoordinatorError") x();')).toEqual([
      'a.ts:1: tells an error by its name string ("CoordinatorError"): use the error\'s kind or code',
    ]);
    expect(
      classCatches(
        "a.ts",
        'if (e instanceof ReadError) x();\nif (kindOf(e) !== "bug") y();\nif (e.name === "YError") z();',
      ),
    ).toEqual([]);
  });

  test("src/ catches no error by a class list or a name string", () => {
    const found = sources()
      .filter((f) => f !== path.join(SRC, "core", "errors.ts"))
      .flatMap((f) => classCatches(path.relative(SRC, f).split(path.sep).join("/"), fs.readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  }, 60_000);

  test("isDeliberate: a KbzError of any kind but bug", () => {
    expect(isDeliberate(new UsageError("x"))).toBe(true);
    expect(isDeliberate(new KbzError("x", { kind: "infrastructure" }))).toBe(true);
    expect(isDeliberate(new KbzError("x", { kind: "bug" }))).toBe(false);
    expect(isDeliberate(new TypeError("x"))).toBe(false);
    expect(isDeliberate(Object.assign(new Error("EIO"), { code: "EIO" }))).toBe(false);
  });

  test("the scheduler's input error becomes a verb's refusal in one place: ops/refused.ts refusingPlanInput", () => {
    const found = sources().flatMap((f) => {
      const text = fs.readFileSync(f, "utf8");
      const n = [
        ...text.matchAll(
          /new RefusedError\(e\.located\(\)\)|instanceof ScheduleInputError\)\s*throw new RefusedError/g,
        ),
      ].length;
      return Array.from({ length: n }, () => path.relative(SRC, f).split(path.sep).join("/"));
    });
    expect(found).toEqual(["ops/refused.ts"]);
  });
});
