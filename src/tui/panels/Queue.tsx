// Queue: the advice of `kbz next` for this scope: what to launch, what waits and why, what
// needs review and why. Computed by core/schedule; this panel only lists it.
import { Text } from "ink";
import { kbz } from "../../core/text/command.ts";
import { describeAttention, type Advice, type BlockReason } from "../../core/schedule/advise.ts";
import type { PlanView } from "../../ops/dashboardPlan.ts";
import type { DetailLine } from "../Detail.tsx";
import type { ListSpec } from "../model.ts";
import { NARROW, type HeadLine, type PanelCtx, type PanelDef } from "../panel.ts";
import { cols, fit, pad } from "../text.ts";
import type { LeafView, Tone } from "../theme.ts";
import { leafStem } from "../../core/plan/leaf-id.ts";

export type QueueKind = "launch" | "active" | "verify" | "wait" | "review";

export interface QueueItem {
  kind: QueueKind;
  leaf: string | null;
  text: string; // one line
  detail: DetailLine[];
}

const TONE: Record<QueueKind, Tone> = {
  launch: "info",
  active: "active",
  verify: "warn",
  wait: "muted",
  review: "bad",
};

export const QUEUE_SPEC: ListSpec<QueueItem> = {
  id: (q) => `${q.kind}:${q.leaf ?? q.text}`,
  text: (q) => `${q.kind} ${q.leaf ?? ""} ${q.text}`,
  // Everything queued is still to do; in flight is the one kind nobody has to act on now.
  done: (q) => q.kind === "active",
};

const verifyItem = (id: string): QueueItem => ({
  kind: "verify",
  leaf: id,
  text: "returned: verify, mark VERIFIED, release its lease",
  detail: [
    {
      label: "verify",
      value: `${id} returned and is not VERIFIED yet: run its ledger, review manual gates, mark VERIFIED, release the lease`,
      wrap: true,
    },
  ],
});

/** The advice as rows; a leaf's state comes from the one model the Graph uses too. */
export function queueItems(view: PlanView | null, states: Map<string, LeafView>): QueueItem[] {
  const a = view?.advice;
  if (!view || !a) return [];
  const scope = view.next!.scope;
  const items: QueueItem[] = [];
  for (const id of a.launch) {
    const c = a.continuations.find((x) => x.leaf === id);
    const notes = [
      a.promote.includes(id) ? "promote WAITING→READY" : "",
      a.alreadyClaimed.includes(id) ? "already holds its lease" : "claim its lease",
      c ? `continues ${c.after}${c.handle ? ` (agent ${c.handle})` : ""}` : "",
    ].filter(Boolean);
    items.push({
      kind: "launch",
      leaf: id,
      text: notes.join(" · "),
      detail: [
        { label: "launch", value: `${id}: ${notes.join("; ")}` },
        ...(a.alreadyClaimed.includes(id)
          ? []
          : [{ label: "claim", value: kbz("scope claim", { scope, leaf: leafStem(id) }) }]),
        {
          label: "then",
          value: "open a wave with every launched leaf, start each agent, seal, mark IN-FLIGHT",
          wrap: true,
        },
      ],
    });
  }
  const verify = new Set(a.awaitVerification);
  for (const id of a.active) {
    // dispatch.json says it returned: the Graph shows `returned`, so the Queue asks to verify it.
    if (states.get(id) === "returned") verify.add(id);
    else
      items.push({
        kind: "active",
        leaf: id,
        text: "in flight",
        detail: [{ label: "active", value: `${id} is in flight: wait for its return` }],
      });
  }
  for (const id of verify) items.push(verifyItem(id));
  for (const b of a.explain?.blocked ?? []) {
    items.push({
      kind: "wait",
      leaf: b.leaf,
      text: `${WAITS[b.reason] ?? b.reason}: ${whyInWords(b.why)}`,
      detail: [
        { label: "waits", value: `${b.leaf}: ${WAITS[b.reason] ?? b.reason} (${b.reason})`, tone: "warn", wrap: true },
        { label: "why", value: whyInWords(b.why), wrap: true },
        ...(b.blockedBy.length ? [{ label: "by", value: b.blockedBy.join(", "), wrap: true }] : []),
      ],
    });
  }
  for (const x of a.explain?.attention ?? []) {
    const concerns = x.tasks.length ? x.tasks.join(", ") : "no task of this plan";
    items.push({
      kind: "review",
      leaf: x.leaf ?? null,
      text: `${describeAttention(x)}: concerns ${concerns}`,
      detail: [
        { label: "review", value: describeAttention(x), tone: "bad" },
        { label: "concerns", value: concerns, wrap: true },
        ...(x.leases ? [{ label: "leases", value: x.leases.join(", "), wrap: true }] : []),
      ],
    });
  }
  return items;
}

const SAYS: Record<Advice["action"], string> = {
  dispatch: "DISPATCH: launch the tasks below",
  "wait-or-verify": "WAIT OR VERIFY: nothing new can start",
  "verify-root": "VERIFY ROOT: every task is VERIFIED; run the root ledgers",
  review: "REVIEW: resolve the items below before launching",
  done: "DONE: the scope is verified and released",
};

/** Why a leaf waits, in words (the scheduler's reason names, kept in the full view). */
export const WAITS: Record<BlockReason, string> = {
  "dependencies-or-unreleased-leases": "waits for what it needs",
  "live-lease-conflict": "another agent's lease covers its files",
  "active-conflict": "conflicts with a leaf in flight",
  "selected-conflict": "conflicts with a leaf launched now",
  "attention-required": "waits until the review items are resolved",
  slots: "no free slot",
};

/** A needs list in words: `needs 1 (READY)` → `needs 1, still ready`. */
function whyInWords(why: string): string {
  return why.replace(
    /needs (\S+) \((\w[\w-]*)\)/g,
    (_m, id: string, st: string) => `needs ${id}, still ${st.toLowerCase()}`,
  );
}

function queueRow(item: QueueItem, active: boolean, ctx: PanelCtx) {
  const { theme, width } = ctx;
  const narrow = width < NARROW;
  const kindW = narrow ? 2 : 8;
  const leafW = Math.min(12, Math.max(4, cols(item.leaf ?? "") + 1));
  return (
    <Text inverse={active} wrap="truncate">
      <Text>{active ? "›" : " "} </Text>
      <Text color={theme.tone(TONE[item.kind])}>{pad(narrow ? GLYPH[item.kind] : item.kind.toUpperCase(), kindW)}</Text>
      <Text bold>{pad(item.leaf ?? "", leafW)}</Text>
      <Text>{fit(item.text, Math.max(0, width - 2 - kindW - leafW))}</Text>
    </Text>
  );
}

const GLYPH: Record<QueueKind, string> = { launch: "▶", active: "●", verify: "◐", wait: "·", review: "!" };

export const queuePanel: PanelDef<QueueItem> = {
  id: "queue",
  spec: QUEUE_SPEC,
  items: (ctx) => ctx.model.queue,
  problem: (data) =>
    data.plan && !data.plan.advice ? `${kbz("next")} cannot advise: ${data.plan.problem ?? ""}` : null,
  empty: (ctx) =>
    ctx.data.plan
      ? "nothing to launch, wait for or review"
      : `no PLAN.md here: ${kbz("next")} needs a scope with a leaf dispatch table`,
  head: (ctx, height) => {
    const a = ctx.data.plan?.advice;
    if (!a) return [];
    const lines: HeadLine[] = [{ text: SAYS[a.action], tone: a.action === "review" ? "bad" : "info", bold: true }];
    if (height >= 8)
      lines.push({
        text: `${a.counts.tasks} tasks · ${ctx.slots} slots · ${a.counts.active} active · mode ${a.mode}`,
        tone: "muted",
      });
    return lines;
  },
  row: queueRow,
  summary: (item) => item.detail,
  full: (item) => ({ title: `Queue: ${item.kind} ${item.leaf ?? ""}`, lines: item.detail }),
  kind: () => "queued",
};
