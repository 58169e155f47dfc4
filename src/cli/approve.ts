// kbz approve [--scope S] [ledger…]: the person's review in a terminal (ops/approve.ts). With no
// argument, everything that waits for them in one run (issue 39): every pending oracle of the solo
// ledgers and of every scope, the probes `kbz check --probe` asked for (each with what it hides)
// and the manual gates not signed yet (the person reads the gate and types the evidence). Each
// oracle is printed whole (ops/approvalView.ts: lint findings, the declared work, a diff of each
// changed file against its approved bytes). Single keys, no Enter: y/n/a/q (io/terminal.ts). With
// --scope, one review: every pending oracle of the scope, then one answer for all.
import { kbz } from "../core/text/command.ts";
import {
  approveOracle,
  approveProbe,
  type Keys,
  type ManualGate,
  type PendingOracles,
  type PendingProbe,
  pendingEverything,
  pendingOracles,
  terminalKeys,
} from "../ops/approve.ts";
import { approvalViewLines } from "../ops/approvalView.ts";
import { signGate } from "../ops/sign.ts";
import type { Verb } from "./index.ts";
import { ledgerFiles, requestedScope, rootFor, usage } from "./context.ts";
import { targetOptions } from "./options.ts";
import { emit, envelope, type ExitCode } from "./envelope.ts";
import { err, flushOut, out } from "./output.ts";

/** Ask until the key is one of `keys`; `q` at end of input. */
function ask(question: string, keys: string[], say: (line: string) => void, input: Keys): string {
  for (;;) {
    say(question);
    flushOut();
    const answer = input.key();
    if (keys.includes(answer)) return answer;
  }
}

interface Tally {
  approved: string[];
  declined: string[];
  probes: string[];
  signed: string[];
  /** How many things were pending when the review began. */
  pending: number;
  quit: boolean;
  all: boolean;
}

/** One target's pending oracles, one at a time (or one answer for a whole --scope). */
async function reviewOracles(
  p: PendingOracles,
  scope: string | null,
  oneReview: boolean,
  t: Tally,
  ctx: { say: (l: string) => void; verbose: boolean; input: Keys },
): Promise<void> {
  const { say, verbose, input } = ctx;
  const how = kbz("approve", { scope: scope || undefined });
  let oneByOne = true;
  if (oneReview && p.pending.length > 1) {
    // One review for the whole scope: every pending oracle in view, then one answer for all.
    for (const v of p.views) for (const l of approvalViewLines(v, verbose)) say(l);
    const n = p.pending.length;
    const answer = ask(
      `  approve all ${n} pending oracles of scope ${scope} shown above? [y]es [n]o [o]ne at a time [q]uit`,
      ["y", "n", "o", "q"],
      say,
      input,
    );
    oneByOne = answer === "o";
    if (answer === "q") t.quit = true;
    if (answer === "y") {
      for (const task of p.pending) {
        await approveOracle(p, task, how);
        t.approved.push(task.qid);
        say(`  APPROVED ${task.qid}`);
      }
    } else if (answer === "n") {
      for (const task of p.pending) t.declined.push(task.qid);
      say(`  not approved: ${p.pending.map((task) => task.qid).join(", ")}`);
    }
  }
  for (const [i, task] of p.pending.entries()) {
    if (!oneByOne || t.quit) break;
    for (const l of approvalViewLines(p.views[i]!, verbose)) say(l);
    const answer = t.all
      ? "y"
      : ask(
          `  approve this oracle (${i + 1}/${p.pending.length})? [y]es [n]o [a]ll remaining [q]uit`,
          ["y", "n", "a", "q"],
          say,
          input,
        );
    if (answer === "q") {
      t.quit = true;
      break;
    }
    if (answer === "a") t.all = true;
    if (answer === "n") {
      t.declined.push(task.qid);
      say(`  not approved ${task.qid}`);
      continue;
    }
    await approveOracle(p, task, how);
    t.approved.push(task.qid);
    say(`  APPROVED ${task.qid}`);
  }
}

/** A probe waiting for approval: its gate, and every path it hides. */
async function reviewProbe(
  p: PendingOracles,
  probe: PendingProbe,
  t: Tally,
  ctx: { say: (l: string) => void; input: Keys },
): Promise<void> {
  const { say, input } = ctx;
  const g = probe.item.gate;
  say(`PROBE ${probe.item.qid}: ${g.title}`);
  say(`    CHECK:  ${g.check ?? ""}`);
  say(`    EXPECT: ${g.expect ?? ""}`);
  say(`    HIDES (${probe.item.hiddenFrom}, ${probe.hides.length}): ${probe.hides.join(", ")}`);
  say("    the probe runs this CHECK again in the sandbox with these paths hidden; it never writes evidence");
  const answer = t.all
    ? "y"
    : ask("  approve this probe? [y]es [n]o [a]ll remaining [q]uit", ["y", "n", "a", "q"], say, input);
  if (answer === "q") {
    t.quit = true;
    return;
  }
  if (answer === "a") t.all = true;
  if (answer === "n") {
    t.declined.push(`probe ${probe.item.qid}`);
    say(`  not approved: probe of ${probe.item.qid}`);
    return;
  }
  await approveProbe(p, probe);
  t.probes.push(probe.item.qid);
  say(`  APPROVED probe of ${probe.item.qid} (${kbz("check", { probe: true })} runs it)`);
}

/** A manual gate waiting for its sign-off: the person reads it and types the evidence. */
async function reviewManual(
  root: string,
  gate: ManualGate,
  t: Tally,
  ctx: { say: (l: string) => void; input: Keys },
): Promise<void> {
  const { say, input } = ctx;
  say(`SIGN ${gate.qid} (${gate.ledger}): ${gate.title}`);
  for (const l of gate.lines) say(`    ${l}`);
  const answer = ask("  sign this gate now? [s]ign (then type the evidence) [n]o [q]uit", ["s", "n", "q"], say, input);
  if (answer === "q") {
    t.quit = true;
    return;
  }
  if (answer === "n") {
    t.declined.push(gate.qid);
    say(`  not signed ${gate.qid}`);
    return;
  }
  for (;;) {
    say("  evidence (what you checked and what you saw), then Enter; empty skips:");
    flushOut();
    const text = input.line();
    if (text === null || text === "") {
      t.declined.push(gate.qid);
      say(`  not signed ${gate.qid}`);
      return;
    }
    try {
      await signGate({ root, scope: null, files: [gate.file], qid: gate.qid, evidence: text, via: "terminal" });
      t.signed.push(gate.qid);
      say(`  SIGNED ${gate.qid}`);
      return;
    } catch (e) {
      say(`  ${(e as Error).message}`);
    }
  }
}

async function approve(argv: Record<string, unknown>): Promise<ExitCode> {
  const files = ledgerFiles(argv as never);
  if (files.length > 0 && argv.scope !== undefined)
    throw usage("explicit ledger files cannot be combined with --scope", "pass either ledger files or --scope ID");
  const root = rootFor(argv as never);
  const scope = files.length > 0 ? null : requestedScope(argv as never);
  const verbose = !!argv.verbose;
  // With --json, stdout carries one envelope only: the review goes to the terminal on stderr.
  const say = argv.json ? err : out;
  const t: Tally = { approved: [], declined: [], probes: [], signed: [], pending: 0, quit: false, all: false };
  const everything = files.length === 0 && scope === null;
  const input = terminalKeys();
  const shown: unknown[] = [];
  try {
    if (!everything) {
      const p = pendingOracles({ root, files, scope, env: process.env });
      t.pending = p.pending.length;
      shown.push(...p.views);
      await reviewOracles(p, scope, scope !== null, t, { say, verbose, input });
    } else {
      const all = await pendingEverything({ root, env: process.env });
      t.pending = all.targets.reduce((n, x) => n + x.oracles.pending.length, 0) + all.probes.length + all.manual.length;
      for (const x of all.targets) {
        shown.push(...x.oracles.views);
        if (!t.quit) await reviewOracles(x.oracles, x.scope, false, t, { say, verbose, input });
      }
      const first = all.targets[0]?.oracles;
      for (const probe of all.probes) if (!t.quit && first) await reviewProbe(first, probe, t, { say, input });
      if (all.probeProblem) say(`  probes not listed: ${all.probeProblem}`);
      for (const gate of all.manual) if (!t.quit) await reviewManual(root, gate, t, { say, input });
    }
  } finally {
    input.restore();
  }
  const done = t.approved.length + t.probes.length + t.signed.length;
  const left = t.pending - done;
  if (argv.json)
    return emit(
      envelope(left === 0 ? "approved" : "pending", left === 0 ? 0 : 1, {
        approved: t.approved,
        probes: t.probes,
        signed: t.signed,
        declined: t.declined,
        pending: t.pending,
        oracles: shown,
      }),
    );
  if (!everything) {
    if (t.pending === 0) out("nothing to approve: every runnable gate's oracle is approved");
    else
      out(
        `approved ${t.approved.length} of ${t.pending} pending oracle(s)${t.approved.length > 0 ? `; ${kbz("check")} runs them` : ""}`,
      );
  } else if (t.pending === 0)
    out("nothing waits for you: every oracle is approved, every probe asked for too, every manual gate signed");
  else {
    const parts = [`approved ${t.approved.length} oracle(s)`];
    if (t.probes.length > 0 || everything) parts.push(`${t.probes.length} probe(s)`);
    if (t.signed.length > 0 || everything) parts.push(`signed ${t.signed.length} gate(s)`);
    out(
      `${parts.join(", ")} of ${t.pending} waiting${left > 0 ? `; ${left} still wait` : ""}${done > 0 ? `; ${kbz("check")} runs what was approved` : ""}`,
    );
  }
  return left === 0 ? 0 : 1;
}

export const verb: Verb = {
  command: "approve [ledger..]",
  describe: "a person reviews everything waiting for them: CHECK oracles, probes, manual sign-offs (in a terminal)",
  builder: (y) =>
    targetOptions(y)
      .option("verbose", { type: "boolean", describe: "print PATH, every oracle file and every diff line in full" })
      .epilog(
        `With no argument: every pending oracle of the solo ledgers and of every scope, the probes ${kbz("check", { probe: true })} ` +
          "asked for (with what each hides) and the manual gates not signed yet (read the gate, type the evidence). " +
          "Each oracle is shown whole: CHECK, EXPECT, CWD, shell, PATH, sandbox, ORACLE FILES, ENV, WORK, lint findings " +
          "and a diff of each file changed since its approval. Single keys: y/n/a(ll remaining)/q. With --scope S: one " +
          "review for the scope's oracles (y/n/o(ne at a time)/q). A person's act: refused (exit 1) without a terminal " +
          `or under an agent host. With git's user.signingKey set each approval is also signed into .kbz/signed/. ${kbz("check")} runs what was approved.\n\n` +
          "Exit codes: 0 nothing left waiting; 1 some left, or refused; 2 usage or an invalid ledger.",
      ),
  handler: (argv) => approve(argv as Record<string, unknown>),
};
