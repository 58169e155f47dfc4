// Why an oracle has no approval although one exists for the same ledger and gate: the inputs that
// differ, named (issue 20.8). Pure: two oracles in, short phrases out.
import * as path from "node:path";
import { oracleSignature, type BoundOracle, type ProgramsOracle, type RuntimeOracle } from "./oracle.ts";

/** PATH entries added, removed and moved (an entry's position changed), in the current order. */
export function pathChanges(
  before: string,
  now: string,
  delimiter = path.delimiter,
): { added: string[]; removed: string[]; moved: string[] } {
  const a = before ? before.split(delimiter) : [];
  const b = now ? now.split(delimiter) : [];
  const inA = new Set(a);
  const inB = new Set(b);
  const added = b.filter((e) => !inA.has(e));
  const removed = a.filter((e) => !inB.has(e));
  // Compare the order of the entries both have: anything out of the common order moved.
  const commonA = a.filter((e) => inB.has(e));
  const commonB = b.filter((e) => inA.has(e));
  const moved = commonB.filter((e, i) => commonA[i] !== e);
  return { added, removed, moved };
}

const list = (items: string[], max = 4) =>
  items.length > max ? `${items.slice(0, max).join(", ")}, +${items.length - max} more` : items.join(", ");

/** The differing inputs, as `NAME: what` phrases; empty when the oracles are the same. */
export function oracleDifferences(approved: RuntimeOracle, now: RuntimeOracle): string[] {
  const out: string[] = [];
  if (approved.check !== now.check) out.push(`CHECK: approved ${JSON.stringify(approved.check)}`);
  if (approved.expect !== now.expect) out.push(`EXPECT: approved ${JSON.stringify(approved.expect)}`);
  if (approved.cwd !== now.cwd) out.push(`CWD: approved for ${approved.cwd}`);
  if (approved.shell !== now.shell) out.push(`SHELL: approved for ${approved.shell}`);
  if (approved.programs && now.programs) out.push(...programDifferences(approved.programs, now.programs));
  else if (now.programs && !approved.programs)
    out.push("programs: the approval bound the PATH string (an older record); kbz now binds what PATH resolves");
  else if (approved.path !== now.path) {
    const c = pathChanges(approved.path, now.path);
    const parts = [
      c.added.length ? `added ${list(c.added)}` : "",
      c.removed.length ? `removed ${list(c.removed)}` : "",
      c.moved.length ? `moved ${list(c.moved)}` : "",
    ].filter(Boolean);
    out.push(`PATH: ${parts.join("; ") || "changed"} (since the approval)`);
  }
  if (approved.timeoutMs !== now.timeoutMs) out.push(`timeout: approved for ${approved.timeoutMs / 1000} s`);
  if (approved.platform !== now.platform) out.push(`platform: approved on ${approved.platform}`);
  if (JSON.stringify(approved.sandbox ?? null) !== JSON.stringify(now.sandbox ?? null))
    out.push(`sandbox: approved ${approved.sandbox ? "with another sandbox profile" : "without a sandbox"}`);
  for (const k of ["maxOutputBytes", "regexTimeoutMs", "regexStartupTimeoutMs", "maxRegexWorkers"] as const) {
    if (approved[k] !== now[k]) out.push(`${k}: approved for ${approved[k]}`);
  }
  out.push(...boundDifferences(approved.bound, now.bound));
  if (out.length === 0 && oracleSignature(approved) !== oracleSignature(now))
    out.push("the oracle's recorded form differs (an older record format)");
  return out;
}

/** Programs that resolve elsewhere, PATH folders inside the root added or gone, and a changed observer (issue 39). */
export function programDifferences(a: ProgramsOracle, b: ProgramsOracle): string[] {
  const out: string[] = [];
  if (a.observer !== b.observer)
    out.push(
      `observer: approved with ${a.observer === "strace" ? "strace" : "the static closure"}, now ${b.observer === "strace" ? "strace" : "the static closure"}`,
    );
  if (a.pathInRoot.join(":") !== b.pathInRoot.join(":"))
    out.push(
      `PATH folders inside the root: approved ${a.pathInRoot.join(", ") || "none"}, now ${b.pathInRoot.join(", ") || "none"}`,
    );
  const changed = Object.keys(b.resolved).filter((n) => a.resolved[n] !== b.resolved[n]);
  const gone = Object.keys(a.resolved).filter((n) => !(n in b.resolved));
  if (gone.length > 0) out.push(`programs no longer run by name: ${gone.join(", ")}`);
  for (const n of changed.slice(0, 4))
    out.push(`program ${n}: approved ${a.resolved[n] ?? "(not run)"}, now ${b.resolved[n]}`);
  if (changed.length > 4) out.push(`programs: ${changed.length - 4} more resolve elsewhere`);
  return out;
}

/** The approval of the same gate whose oracle is nearest to `now` (fewest differing inputs). */
export function nearestApproval<T extends { oracle: RuntimeOracle }>(
  records: T[],
  now: RuntimeOracle,
): { record: T; differs: string[] } | null {
  let best: { record: T; differs: string[] } | null = null;
  for (const r of records) {
    const differs = oracleDifferences(r.oracle, now);
    if (!best || differs.length < best.differs.length) best = { record: r, differs };
  }
  return best;
}

/** The lines an APPROVAL REQUIRED block adds for a near miss (none when no approval of the gate exists). */
export function nearMissLines(
  file: string,
  records: { oracle: RuntimeOracle; approvedAt: string }[],
  now: RuntimeOracle,
  root: string,
): string[] {
  const near = nearestApproval(records, now);
  if (!near || near.differs.length === 0) return [];
  const lines = [`APPROVED ${near.record.approvedAt.slice(0, 10)} for other inputs; differs in:`];
  for (const d of near.differs) lines.push(`  ${d}`);
  // The directory rule changed for ledgers inside .unlazy/<scope>/ (they ran from their own folder).
  if (near.record.oracle.cwd !== now.cwd && near.record.oracle.cwd === path.dirname(file) && now.cwd === root) {
    lines.push("  (that approval predates the CHECK directory rule: scope ledgers now run from the repository root)");
  }
  return lines;
}

/** Changed, added and removed oracle files and ENV values (issue 27), one phrase per kind. */
export function boundDifferences(approved: BoundOracle | undefined, now: BoundOracle | undefined): string[] {
  const a = approved ?? { files: {}, env: {} };
  const b = now ?? { files: {}, env: {} };
  if (!approved && now)
    return [
      `oracle files: the approval predates oracle binding (it approved the CHECK text only): ${list(Object.keys(b.files).concat(Object.keys(b.env).map((n) => `$${n}`)))}`,
    ];
  const out: string[] = [];
  const diff = (x: Record<string, string>, y: Record<string, string>) => ({
    changed: Object.keys(y)
      .filter((k) => k in x && x[k] !== y[k])
      .sort(),
    added: Object.keys(y)
      .filter((k) => !(k in x))
      .sort(),
    removed: Object.keys(x)
      .filter((k) => !(k in y))
      .sort(),
  });
  const f = diff(a.files, b.files);
  if (f.changed.length) out.push(`oracle file changed: ${list(f.changed)}`);
  if (f.added.length) out.push(`oracle file added: ${list(f.added)}`);
  if (f.removed.length) out.push(`oracle file no longer run: ${list(f.removed)}`);
  const e = diff(a.env, b.env);
  const names = [...e.changed, ...e.added, ...e.removed];
  if (names.length) out.push(`ENV value changed: ${list(names)}`);
  return out;
}
