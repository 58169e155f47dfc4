// Queue: the advice of `kbz next` for this scope: what to launch, what waits and why, what
// needs review and why. Computed by core/schedule; this panel only lists it.
import { Box, Text } from "ink";
import { describeAttention, type Advice } from "../../core/schedule/advise.ts";
import { useUi } from "../context.tsx";
import { Detail, paneWant, type DetailLine } from "../Detail.tsx";
import { splitPane } from "../layout.ts";
import { List } from "../List.tsx";
import type { Listed, ListSpec } from "../model.ts";
import type { PlanView } from "../plan.ts";
import { fit, pad } from "../text.ts";
import type { LeafView, Tone } from "../theme.ts";

export type QueueKind = "launch" | "active" | "verify" | "wait" | "review";

export interface QueueItem {
  kind: QueueKind;
  leaf: string | null;
  text: string; // one line
  detail: DetailLine[];
}

const TONE: Record<QueueKind, Tone> = { launch: "info", active: "active", verify: "warn", wait: "muted", review: "bad" };

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
  detail: [{ label: "verify", value: `${id} returned and is not VERIFIED yet: run its ledger, review manual gates, mark VERIFIED, release the lease`, wrap: true }],
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
        ...(a.alreadyClaimed.includes(id) ? [] : [{ label: "claim", value: `kbz scope claim --scope ${scope} --leaf leaf-${id}` }]),
        { label: "then", value: "open a wave with every launched leaf, start each agent, seal, mark IN-FLIGHT", wrap: true },
      ],
    });
  }
  const verify = new Set(a.awaitVerification);
  for (const id of a.active) {
    // dispatch.json says it returned: the Graph shows `returned`, so the Queue asks to verify it.
    if (states.get(id) === "returned") verify.add(id);
    else items.push({ kind: "active", leaf: id, text: "in flight", detail: [{ label: "active", value: `${id} is in flight: wait for its return` }] });
  }
  for (const id of verify) items.push(verifyItem(id));
  for (const b of a.explain?.blocked ?? []) {
    items.push({
      kind: "wait",
      leaf: b.leaf,
      text: `${b.reason}: ${b.why}`,
      detail: [
        { label: "waits", value: `${b.leaf}: ${b.reason}`, tone: "warn" },
        { label: "why", value: b.why, wrap: true },
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
};

export interface QueueProps {
  view: PlanView | null;
  list: Listed<QueueItem>;
  selected: number;
  slots: number;
}

export function Queue({ view, list, selected, slots }: QueueProps) {
  const { theme, width, height } = useUi();
  if (!view?.advice) {
    const why = view?.problem ?? (view ? "" : "no PLAN.md here: kbz next needs a scope with a leaf dispatch table");
    return (
      <Box flexDirection="column" height={height}>
        <Text color={theme.tone(view ? "bad" : "muted")}>{fit(`kbz next cannot advise: ${why}${view ? " (enter shows it in full)" : ""}`, width)}</Text>
      </Box>
    );
  }
  const a = view.advice;
  const items = list.items;
  // The counts line goes first when the pane is short; the verdict line stays.
  const counts = height >= 8 ? 1 : 0;
  const detailLines = items[selected]?.detail ?? [];
  const { list: listHeight, detail } = splitPane(height - 1 - counts, items.length, paneWant(detailLines, width));
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate">
        <Text bold color={theme.tone(a.action === "review" ? "bad" : "info")}>
          {fit(SAYS[a.action], width)}
        </Text>
      </Text>
      {counts ? (
        <Text color={theme.tone("muted")} wrap="truncate">
          {fit(`${a.counts.tasks} tasks · ${slots} slots · ${a.counts.active} active · mode ${a.mode}`, width)}
        </Text>
      ) : null}
      <List
        items={items}
        selected={selected}
        height={listHeight}
        hidden={list.total - items.length}
        empty={list.total ? "nothing matches" : "nothing to launch, wait for or review"}
        row={(item, _i, active) => (
          <Text inverse={active} wrap="truncate">
            <Text>{active ? "›" : " "} </Text>
            <Text color={theme.tone(TONE[item.kind])}>{pad(item.kind.toUpperCase(), 8)}</Text>
            <Text bold>{pad(item.leaf ?? "", 8)}</Text>
            <Text>{fit(item.text, Math.max(0, width - 18))}</Text>
          </Text>
        )}
      />
      <Detail lines={detailLines} height={detail} />
    </Box>
  );
}
