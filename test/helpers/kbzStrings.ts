// The scan behind test/core/text/kbz-strings.test.ts: string text in src/ that names a `kbz VERB`
// by hand, read from the TypeScript syntax tree (comments are not text; a template's ${…} is code).
import ts from "typescript";
import { VERB_FLAGS } from "../../src/core/text/command.ts";

export const MARK = /hand-written kbz commands:\s*\S/i;
const VERBS = [...new Set(Object.keys(VERB_FLAGS).map((k) => k.split(" ")[0]!))];
const COMMAND = new RegExp(`\\bkbz (${VERBS.join("|")})\\b`, "g");

export interface Finding {
  file: string;
  line: number;
  text: string;
}

/** String text of `file` that names a kbz command by hand: `hand` unmarked, `marked` under an exception comment. */
export function handBuilt(file: string, source: string): { hand: Finding[]; marked: Finding[] } {
  const sf = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const hand: Finding[] = [];
  const marked: Finding[] = [];
  const exempt = (n: ts.Node): boolean => {
    for (let h: ts.Node | undefined = n; h && !ts.isSourceFile(h); h = h.parent) {
      const comments = ts.getLeadingCommentRanges(source, h.getFullStart()) ?? [];
      if (comments.some((c) => MARK.test(source.slice(c.pos, c.end)))) return true;
    }
    return false;
  };
  const visit = (n: ts.Node) => {
    let text: string | null = null;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isJsxText(n)) text = n.text;
    // A template's own text, with each ${…} as a gap (what is built inside it is code, not text).
    else if (ts.isTemplateExpression(n))
      text = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join("${…}");
    // `kbz ${verb}` in a template is a command spelled by hand too, with its verb computed.
    if (text !== null && (new RegExp(COMMAND.source).test(text) || /\bkbz \$\{…\}/.test(text))) {
      const f = { file, line: sf.getLineAndCharacterOfPosition(n.getStart()).line + 1, text };
      (exempt(n) ? marked : hand).push(f);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { hand, marked };
}

/** The verbs, actions and flags in exception text that the table does not have. */
export function unknownFlags(text: string): string[] {
  const problems: string[] = [];
  const matches = [...text.matchAll(COMMAND)];
  matches.forEach((m, i) => {
    const end = Math.min(
      matches[i + 1]?.index ?? text.length,
      (text.indexOf("\n", m.index) + 1 || text.length + 1) - 1,
    );
    const rest = text.slice(m.index! + m[0].length, end);
    const action = /^ +([a-z]+)/.exec(rest)?.[1];
    const entry = action !== undefined && `${m[1]} ${action}` in VERB_FLAGS ? `${m[1]} ${action}` : m[1]!;
    const flags = new Set<string>(
      entry === m[1]
        ? Object.entries(VERB_FLAGS)
            .filter(([k]) => k.split(" ")[0] === m[1])
            .flatMap(([, f]) => [...f])
        : VERB_FLAGS[entry as keyof typeof VERB_FLAGS],
    );
    // `--no-X` is the negation of the boolean flag X (yargs).
    for (const f of rest.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g))
      if (!flags.has(f[1]!) && !(f[1]!.startsWith("no-") && flags.has(f[1]!.slice(3))))
        problems.push(`kbz ${entry} --${f[1]}`);
  });
  return problems;
}
