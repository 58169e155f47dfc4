// kbz approve [--scope S] [ledger…]: the person's review of every pending oracle in a terminal
// (ops/approve.ts). Prints each oracle whole (ops/approvalView.ts) and reads y/n/a/q from the
// terminal; with --scope, one review: every pending oracle of the scope, then one answer for all.
import * as fs from "node:fs";
import { kbz } from "../core/text/command.ts";
import { approveOracle, pendingOracles } from "../ops/approve.ts";
import { approvalViewLines } from "../ops/approvalView.ts";
import type { Verb } from "./index.ts";
import { ledgerFiles, requestedScope, rootFor, usage } from "./context.ts";
import { targetOptions } from "./options.ts";
import { emit, envelope, type ExitCode } from "./envelope.ts";
import { err, flushOut, out } from "./output.ts";

/** One answer line from the terminal (stdin), lower-cased; "q" at end of input. */
function readAnswer(): string {
  const buf = Buffer.alloc(1);
  let line = "";
  for (;;) {
    let n = 0;
    try {
      n = fs.readSync(0, buf, 0, 1, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") continue;
      return "q";
    }
    if (n === 0) return line.trim() === "" ? "q" : line.trim().toLowerCase();
    const c = buf.toString("latin1");
    if (c === "\n" || c === "\r") return line.trim().toLowerCase();
    line += c;
  }
}

/** Ask until the answer is one of `keys`; `q` at end of input. */
function ask(question: string, keys: string[], say: (line: string) => void): string {
  for (;;) {
    say(question);
    flushOut();
    const answer = readAnswer().slice(0, 1);
    if (keys.includes(answer)) return answer;
  }
}

async function approve(argv: Record<string, unknown>): Promise<ExitCode> {
  const files = ledgerFiles(argv as never);
  if (files.length > 0 && argv.scope !== undefined)
    throw usage("explicit ledger files cannot be combined with --scope", "pass either ledger files or --scope ID");
  const root = rootFor(argv as never);
  const scope = files.length > 0 ? null : requestedScope(argv as never);
  const p = pendingOracles({ root, files, scope, env: process.env });
  const verbose = !!argv.verbose;
  // With --json, stdout carries one envelope only: the review goes to the terminal on stderr.
  const say = argv.json ? err : out;
  const approved: string[] = [];
  const declined: string[] = [];
  const how = kbz("approve", { scope: scope || undefined });
  let oneByOne = true;
  if (scope && p.pending.length > 1) {
    // One review for the whole scope: every pending oracle in view, then one answer for all.
    for (const v of p.views) for (const l of approvalViewLines(v, verbose)) say(l);
    const n = p.pending.length;
    const answer = ask(
      `  approve all ${n} pending oracles of scope ${scope} shown above? [y]es [n]o [o]ne at a time [q]uit`,
      ["y", "n", "o", "q"],
      say,
    );
    oneByOne = answer === "o";
    if (answer === "y") {
      for (const t of p.pending) {
        await approveOracle(p, t, how);
        approved.push(t.qid);
        say(`  APPROVED ${t.qid}`);
      }
    } else if (answer === "n") {
      for (const t of p.pending) declined.push(t.qid);
      say(`  not approved: ${p.pending.map((t) => t.qid).join(", ")}`);
    }
  }
  let all = false;
  for (const [i, t] of p.pending.entries()) {
    if (!oneByOne) break;
    for (const l of approvalViewLines(p.views[i]!, verbose)) say(l);
    const answer = all
      ? "y"
      : ask(
          `  approve this oracle (${i + 1}/${p.pending.length})? [y]es [n]o [a]ll remaining [q]uit`,
          ["y", "n", "a", "q"],
          say,
        );
    if (answer === "q") break;
    if (answer === "a") all = true;
    if (answer === "n") {
      declined.push(t.qid);
      say(`  not approved ${t.qid}`);
      continue;
    }
    await approveOracle(p, t, how);
    approved.push(t.qid);
    say(`  APPROVED ${t.qid}`);
  }
  const left = p.pending.length - approved.length;
  if (argv.json)
    return emit(
      envelope(left === 0 ? "approved" : "pending", left === 0 ? 0 : 1, {
        approved,
        declined,
        pending: p.pending.length,
        oracles: p.views,
      }),
    );
  if (p.pending.length === 0) out("nothing to approve: every runnable gate's oracle is approved");
  else
    out(
      `approved ${approved.length} of ${p.pending.length} pending oracle(s)${approved.length > 0 ? `; ${kbz("check")} runs them` : ""}`,
    );
  return left === 0 ? 0 : 1;
}

export const verb: Verb = {
  command: "approve [ledger..]",
  describe: "a person reviews and approves every pending CHECK oracle, one at a time (in a terminal)",
  builder: (y) =>
    targetOptions(y)
      .option("verbose", { type: "boolean", describe: "print PATH and every oracle file in full" })
      .epilog(
        "Shows each pending oracle whole (CHECK, EXPECT, CWD, shell, PATH, sandbox, ORACLE FILES, ENV names, what changed " +
          "since its last approval with a short git diff) and asks y/n/a(ll remaining)/q. With --scope S: one review, every " +
          "pending oracle of the scope shown, then one answer for all (y/n/o(ne at a time)/q). A person's act: refused (exit 1) " +
          `without a terminal or under an agent host. With git's user.signingKey set each approval is also signed into .kbz/signed/. ${kbz("check")} runs what was approved.\n\n` +
          "Exit codes: 0 nothing left pending; 1 some left unapproved, or refused; 2 usage or an invalid ledger.",
      ),
  handler: (argv) => approve(argv as Record<string, unknown>),
};
