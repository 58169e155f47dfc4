// The text of `kbz next`'s advice (docs/formats.md#next-output), shared by `kbz next` and the
// verbs that end with it (`kbz advance`): short lines, each command ready to paste.
import { describeAttention, type Advice } from "../core/schedule/advise.ts";
import { reviewHint } from "../core/schedule/review-hints.ts";
import type { NextSnapshot } from "../core/schedule/snapshot.ts";
import { out } from "./output.ts";
import { shellQuote } from "../core/text/shell.ts";
import { plural } from "../core/text/plural.ts";

function nextWaveId(snap: NextSnapshot): string {
  let n = 0;
  for (const w of snap.waves) {
    const m = /^w([0-9]+)$/.exec(w.id);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return `w${n + 1}`;
}

// wave start marks a launched row IN-FLIGHT (promoting it from WAITING when its needs are
// VERIFIED) and advance marks it VERIFIED: the advice never asks for a hand edit of PLAN.md.
const CLOSING: Record<Advice["action"], (s: string, a: Advice) => string> = {
  dispatch: (s) => `launch the tasks above; as each returns run kbz advance --scope ${s} --leaf LEAF`,
  "wait-or-verify": (s) => `nothing new can start: when a leaf returns run kbz advance --scope ${s} --leaf LEAF`,
  "verify-root": (s, a) =>
    `every task is VERIFIED: ${signFirst(a)}run kbz check --scope ${s} --reverify, then kbz scope release --scope ${s}`,
  review: () => "review the items above before anything is launched (skill: references/orchestration.md, review items)",
};

/** The person's signatures the root needs before its one check (ops/next.ts unsignedIntegration). */
function signFirst(a: Advice): string {
  const sign = a.signFirst ?? [];
  if (sign.length === 0) return "";
  const cmds = sign.map((g) => `kbz sign ${shellQuote(g.ledger)} ${g.gate} --evidence "..."`);
  return `a person signs ${sign.map((g) => g.gate).join(", ")} first (${cmds.join("; ")}), then `;
}

export function printHuman(snap: NextSnapshot, a: Advice, rootArg: string, details: boolean, emit: (line: string) => void = out): void {
  const s = `${snap.scope}${rootArg}`;
  emit(`scope ${snap.scope}: ${a.counts.tasks} task(s), ${snap.slots} slot(s), ${a.counts.active} active, mode ${a.mode}`);
  if (a.launch.length > 0) {
    emit(`LAUNCH ${a.launch.length}: ${a.launch.join(", ")}`);
    if (details) for (const p of a.explain?.preferred ?? []) emit(`  ${p.leaf} preferred: ${p.why}`);
    for (const id of a.launch) {
      if (a.alreadyClaimed.includes(id)) emit(`  leaf-${id} already holds its lease (do not claim again)`);
      else emit(`  kbz scope claim --scope ${s} --leaf leaf-${id}`);
    }
    const wave = nextWaveId(snap);
    emit(`  kbz wave open --scope ${s} --wave ${wave} ${a.launch.map((id) => `--leaf leaf-${id}`).join(" ")}`);
    for (const id of a.launch) {
      const c = a.continuations.find((x) => x.leaf === id);
      const hint = c ? (c.handle !== null ? `   # continues ${c.after}: reuse agent ${c.handle} if the host still has it` : `   # continues ${c.after} (no recorded handle)`) : "";
      emit(`  kbz wave start --scope ${s} --wave ${wave} --leaf leaf-${id} --handle <agent handle>${hint}`);
    }
    emit(`  kbz wave seal --scope ${s} --wave ${wave}`);
  }
  if (a.active.length > 0) emit(`ACTIVE ${a.active.length}: ${a.active.join(", ")}`);
  if (a.awaitVerification.length > 0) {
    emit(`RETURNED, VERIFY ${a.awaitVerification.length}: ${a.awaitVerification.join(", ")}`);
    for (const id of a.awaitVerification) emit(`  kbz advance --scope ${s} --leaf leaf-${id}`);
  }
  for (const h of a.handoffs?.pending ?? []) {
    emit(`REPORT ${h.id} on ${h.parent} pending: ${h.returned ? "returned" : "not returned yet"}, ${h.leaseReleased ? "lease released" : "lease held"}; accept, resume or reject it with kbz structure`);
  }
  const blocked = a.explain?.blocked ?? [];
  if (blocked.length > 0) {
    emit(`WAITING ${blocked.length}:`);
    for (const b of blocked) emit(`  ${b.leaf} (${b.reason}): ${b.why}`);
  }
  // A cascade is one item under its cause, with one command; the items it covers are not repeated.
  const cascades = a.cascades ?? [];
  for (const c of cascades) {
    const items = [c.gates > 0 ? plural(c.gates, "gate") : "", c.receipts > 0 ? plural(c.receipts, "receipt") : ""].filter(Boolean).join(", ");
    emit(`CASCADE ${c.cause} changed: ${items} (${c.leaves.length === 0 ? "no leaf" : `${c.leaves.length === 1 ? "leaf" : "leaves"} ${c.leaves.join(", ")}`})`);
    emit(`  ${c.next}`);
  }
  const covered = new Set(cascades.flatMap((c) => c.leaves));
  const attention = (a.explain?.attention ?? []).filter((x) => !(x.leaf !== undefined && covered.has(x.leaf) && /^(verified-ledger-not-met|verification-changed-)/.test(x.reason)));
  if (attention.length > 0) {
    emit(`REVIEW ${attention.length}:`);
    for (const x of attention) {
      const leases = x.leases ? ` lease ${x.leases.join(", ")};` : "";
      emit(`  ${describeAttention(x)}:${leases} concerns ${x.tasks.length > 0 ? x.tasks.join(", ") : "no task of this plan"}`);
      emit(`    next: ${reviewHint(x, snap.scope)}`);
    }
  }
  if (details && a.structure) {
    const st = a.structure;
    emit(`SEQUENTIAL GROUPS ${st.sequentialGroups.length}: ${st.sequentialGroups.map((g) => g.join(" > ")).join(" | ")}`);
    for (const f of st.forks) emit(`  fork: ${f.after} -> ${f.children.join(", ")}`);
    for (const j of st.joins) emit(`  join: ${j.leaf} <- ${j.needs.join(", ")}`);
  }
  emit(`${a.action.toUpperCase()}: ${CLOSING[a.action](s, a)}`);
}

/** The advice as `kbz next` prints it, as lines (for a verb that ends with it). */
export function nextLines(snap: NextSnapshot, advice: Advice): string[] {
  const lines: string[] = [];
  printHuman(snap, advice, "", false, (l) => lines.push(l));
  return lines;
}
