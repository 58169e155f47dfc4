// The text of `kbz next`'s advice (docs/formats.md#next-output), shared by `kbz next` and the
// verbs that end with it (`kbz advance`): short lines, each command ready to paste.
import { describeAttention, type Advice, type SoloItem } from "../core/schedule/advise.ts";
import { nextWaveId, type Launch } from "../ops/launch.ts";
import { reviewHint } from "../core/schedule/review-hints.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { out } from "./output.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { plural } from "../core/text/plural.ts";
import { personLine } from "../core/text/person.ts";
import { leafStem } from "../core/plan/leaf-id.ts";

// wave start marks a launched row IN-FLIGHT (promoting it from WAITING when its needs are
// VERIFIED) and advance marks it VERIFIED: the advice never asks for a hand edit of PLAN.md.
/** The scope the printed commands name, and the --root the caller was given (if any). */
export interface Where {
  scope: string;
  root?: string;
}

const CLOSING: Record<Advice["action"], (w: Where, a: Advice) => string> = {
  dispatch: (w) =>
    `${kbz("next", { ...w, launch: true })} starts them (leases, wave, handles); as each returns run ${kbz("advance", { ...w, leaf: ph("LEAF") })}`,
  "wait-or-verify": (w) =>
    `nothing new can start: when a leaf returns run ${kbz("advance", { ...w, leaf: ph("LEAF") })}`,
  "verify-root": (w, a) =>
    `every task is VERIFIED: ${(a.signFirst ?? []).length > 0 ? "once the person signed, " : ""}run ${kbz("check", { ...w, reverify: true })}, then ${kbz("scope release", w)}`,
  review: (w, a) =>
    a.attention.length === 0 && (a.solo ?? []).length > 0
      ? `the solo gates above are not met: do what each next: says, then run ${kbz("next", w)} again`
      : "review the items above before anything is launched (skill: references/orchestration.md, review items)",
  done: (w) => `scope ${w.scope} is verified and released: nothing left to do`,
};

/** A solo gate's way out: run it, or a person signs it. */
function soloNext(x: SoloItem): string {
  return x.manual
    ? `a person signs it: ${kbz("sign", x.ledger, x.gate, { evidence: ph('"..."') })}`
    : kbz("check", {}, x.ledger);
}

/** The person's sign-offs the root needs before its one check (ops/next.ts unsignedIntegration), as the PERSON line. */
export function signFirstLine(a: Advice): string | null {
  const sign = a.signFirst ?? [];
  return personLine({
    approvals: [],
    probes: 0,
    signoffs: sign.map((g) => ({ qid: g.gate, ledger: g.ledger, gate: g.gate })),
  });
}

/** The claim/open/start/seal steps `--launch` takes in one call, for a host that records them itself (--details). */
function manualSteps(snap: NextSnapshot, a: Advice, w: Where, emit: (line: string) => void): void {
  for (const id of a.launch) {
    if (a.alreadyClaimed.includes(id)) emit(`  ${leafStem(id)} already holds its lease (do not claim again)`);
    else emit(`  ${kbz("scope claim", { ...w, leaf: leafStem(id) })}`);
  }
  const wave = nextWaveId(snap);
  emit(`  ${kbz("wave open", { ...w, wave, leaf: a.launch.map((id) => leafStem(id)) })}`);
  for (const id of a.launch) {
    const c = a.continuations.find((x) => x.leaf === id);
    const hint = c
      ? c.handle !== null
        ? `   # continues ${c.after}: reuse agent ${c.handle} if the host still has it`
        : `   # continues ${c.after} (no recorded handle)`
      : "";
    emit(`  ${kbz("wave start", { ...w, wave, leaf: leafStem(id), handle: ph("<agent handle>") })}${hint}`);
  }
  emit(`  ${kbz("wave seal", { ...w, wave })}`);
}

/**
 * What `kbz next --launch` prints: one line for the wave, then per leaf what its worker needs
 * (handle, owns, reads, the gates to meet, manual ones marked) on one line.
 */
export function printLaunch(
  l: Launch,
  root: string | undefined,
  emit: (line: string) => void = out,
  inLoop = false,
): void {
  // In the leaf loop (advance --launch) the agent already knows how a worker returns.
  const how = inLoop
    ? ""
    : `; as each worker returns: ${kbz("advance", { scope: l.snap.scope, root, leaf: ph("ID") })}`;
  emit(`LAUNCHED ${l.wave}: ${l.launched.map((x) => x.id).join(", ")}${how}`);
  for (const x of l.launched) {
    const gates = x.gates.map((g) => (g.manual ? `${g.id} (manual: a person signs)` : g.id)).join(", ") || "none yet";
    const reads = x.reads.length > 0 ? `; reads ${x.reads.join(", ")}` : "";
    const cont = x.continues
      ? x.continues.handle !== null
        ? `; continues ${x.continues.after} (agent ${x.continues.handle})`
        : `; continues ${x.continues.after}`
      : "";
    emit(`  ${x.id} handle ${x.handle}: owns ${x.owns.join(", ")}${reads}; meet ${gates} in ${x.ledger}${cont}`);
  }
}

export function printHuman(
  snap: NextSnapshot,
  a: Advice,
  root: string | undefined,
  details: boolean,
  emit: (line: string) => void = out,
): void {
  const w: Where = { scope: snap.scope, root };
  // Done: the one line (issue 43).
  if (a.action === "done" && (a.solo ?? []).length === 0) return void emit(`DONE: ${CLOSING.done(w, a)}`);
  emit(
    `scope ${snap.scope}: ${a.counts.tasks} task(s), ${snap.slots} slot(s), ${a.counts.active} active, mode ${a.mode}`,
  );
  if (a.launch.length > 0) {
    emit(`LAUNCH ${a.launch.length}: ${a.launch.join(", ")}`);
    if (details) for (const p of a.explain?.preferred ?? []) emit(`  ${p.leaf} preferred: ${p.why}`);
    if (details) manualSteps(snap, a, w, emit);
  }
  if (a.active.length > 0) emit(`ACTIVE ${a.active.length}: ${a.active.join(", ")}`);
  if (a.awaitVerification.length > 0) {
    emit(`RETURNED, VERIFY ${a.awaitVerification.length}: ${a.awaitVerification.join(", ")}`);
    for (const id of a.awaitVerification) emit(`  ${kbz("advance", { ...w, leaf: leafStem(id) })}`);
  }
  for (const h of a.handoffs?.pending ?? []) {
    emit(
      `REPORT ${h.id} on ${h.parent} pending: ${h.returned ? "returned" : "not returned yet"}, ${h.leaseReleased ? "lease released" : "lease held"}; accept, resume or reject it with ${kbz("structure")}`,
    );
  }
  const blocked = a.explain?.blocked ?? [];
  if (blocked.length > 0 && details) {
    emit(`WAITING ${blocked.length}:`);
    for (const b of blocked) emit(`  ${b.leaf} (${b.reason}): ${b.why}`);
  } else if (blocked.length > 0)
    emit(`WAITING ${blocked.length}: ${blocked.map((b) => b.leaf).join(", ")} (--details says why)`);
  // A cascade is one item under its cause, with one command; the items it covers are not repeated.
  const cascades = a.cascades ?? [];
  for (const c of cascades) {
    const items = [c.gates > 0 ? plural(c.gates, "gate") : "", c.receipts > 0 ? plural(c.receipts, "receipt") : ""]
      .filter(Boolean)
      .join(", ");
    emit(
      `CASCADE ${c.cause} changed: ${items} (${c.leaves.length === 0 ? "no leaf" : `${c.leaves.length === 1 ? "leaf" : "leaves"} ${c.leaves.join(", ")}`})`,
    );
    emit(`  ${c.next}`);
  }
  const covered = new Set(cascades.flatMap((c) => c.leaves));
  const attention = (a.explain?.attention ?? []).filter(
    (x) =>
      !(
        x.leaf !== undefined &&
        covered.has(x.leaf) &&
        /^(verified-ledger-not-met|verification-changed-)/.test(x.reason)
      ),
  );
  if (attention.length > 0) {
    emit(`REVIEW ${attention.length}:`);
    for (const x of attention) {
      const leases = x.leases ? ` lease ${x.leases.join(", ")};` : "";
      emit(
        `  ${describeAttention(x)}:${leases} concerns ${x.tasks.length > 0 ? x.tasks.join(", ") : "no task of this plan"}`,
      );
      emit(`    next: ${reviewHint(x, snap.scope)}`);
    }
  }
  // Solo gates judged with the scope (issue 43): named by ledger, so GATES.md:G1 is never taken for the scope's.
  const solo = a.solo ?? [];
  if (solo.length > 0) {
    emit(`REVIEW SOLO ${solo.length}:`);
    for (const x of solo) emit(`  ${x.ledger}:${x.gate} ${x.state}; next: ${soloNext(x)}`);
  }
  if (details && a.structure) {
    const st = a.structure;
    // One count of groups everywhere (issue 43): the registry's groups, which structure regroup,
    // split and check count; before any structure event the registry would hold one group per
    // leaf, and the schedule follows the plan's dependency chains, shown as chains.
    const shown = st.sequentialGroups.map((g) => g.join(" > ")).join(" | ");
    if (snap.structure) emit(`GROUPS ${st.sequentialGroups.length}: ${shown}`);
    else
      emit(
        `GROUPS ${a.counts.tasks} (one per leaf until a structure event); CHAINS ${st.sequentialGroups.length}: ${shown}`,
      );
    for (const f of st.forks) emit(`  fork: ${f.after} -> ${f.children.join(", ")}`);
    for (const j of st.joins) emit(`  join: ${j.leaf} <- ${j.needs.join(", ")}`);
  }
  const person = a.action === "verify-root" ? signFirstLine(a) : null;
  if (person !== null) emit(person);
  emit(`${a.action.toUpperCase()}: ${CLOSING[a.action](w, a)}`);
}

/** The advice as `kbz next` prints it, as lines (for a verb that ends with it). */
export function nextLines(snap: NextSnapshot, advice: Advice): string[] {
  const lines: string[] = [];
  printHuman(snap, advice, undefined, false, (l) => lines.push(l));
  return lines;
}
