// A unified diff (the `diff -u` form people read) of two texts: what a person sees on every
// approve screen for an oracle file edited since its approval (issue 39: against the approved
// bytes kbz kept, io/run/kept.ts). Pure; an LCS over lines, bounded: two texts whose product of
// line counts is over MAX_CELLS are summarised instead of diffed.

const MAX_CELLS = 4_000_000;
const CONTEXT = 3;

type Op = { kind: " " | "-" | "+"; text: string; a: number; b: number };

function ops(a: string[], b: string[]): Op[] {
  // Common head and tail first: a typical edit touches a few lines of a long file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const n = x.length;
  const m = y.length;
  const out: Op[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: " ", text: a[i]!, a: i, b: i });
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) out.push({ kind: " ", text: x[i++]!, a: head + i - 1, b: head + j++ });
    else if (j < m && (i === n || lcs[i]![j + 1]! > lcs[i + 1]![j]!))
      out.push({ kind: "+", text: y[j]!, a: head + i, b: head + j++ });
    else out.push({ kind: "-", text: x[i]!, a: head + i++, b: head + j });
  }
  for (let k = 0; k < tail; k++)
    out.push({ kind: " ", text: a[a.length - tail + k]!, a: a.length - tail + k, b: b.length - tail + k });
  return out;
}

function lines(text: string): string[] {
  const l = text.split("\n");
  if (l.length > 1 && l[l.length - 1] === "") l.pop();
  return l;
}

/**
 * `--- <name> (approved)` / `+++ <name> (now)` and its hunks with 3 lines of context; [] when the
 * texts are equal. `before` null: the file did not exist at approval; `after` null: it is gone.
 */
export function unifiedDiff(name: string, before: string | null, after: string | null): string[] {
  if (before === after) return [];
  const a = before === null ? [] : lines(before);
  const b = after === null ? [] : lines(after);
  const header = [
    `--- ${before === null ? "/dev/null" : `${name} (approved)`}`,
    `+++ ${after === null ? "/dev/null" : `${name} (now)`}`,
  ];
  if (a.length * b.length > MAX_CELLS)
    return [...header, `@@ too large to diff here: ${a.length} lines approved, ${b.length} now @@`];
  const all = ops(a, b);
  const changed = all.map((o, k) => (o.kind === " " ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return [...header, "@@ only the end of the last line differs (a final newline) @@"];
  const out = [...header];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - CONTEXT);
    let end = Math.min(all.length, changed[k]! + CONTEXT + 1);
    while (k + 1 < changed.length && changed[k + 1]! - CONTEXT <= end)
      end = Math.min(all.length, changed[++k]! + CONTEXT + 1);
    k++;
    const hunk = all.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    const aStart = aCount === 0 ? hunk[0]!.a : hunk.find((o) => o.kind !== "+")!.a + 1;
    const bStart = bCount === 0 ? hunk[0]!.b : hunk.find((o) => o.kind !== "-")!.b + 1;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.text}`);
  }
  return out;
}
