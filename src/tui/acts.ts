// What each command does: navigation goes to the reducer, acts (running, approving, signing,
// probing) go to the dashboard's ops and report back through actions. The key handler, the
// `?` help (enter runs the selected key) and the mouse all call `perform`.
import { isRunnable } from "../core/ledger/model.ts";
import type { DashSource } from "../ops/dashboard.ts";
import {
  approveShown,
  confirmRemoved,
  probeGate,
  runGates,
  runSummary,
  signShown,
  type ProbeShown,
} from "../ops/dashboardActs.ts";
import type { Env } from "../ops/dashboard.ts";
import type { UIState } from "./container.tsx";
import { keyName, lookup, PANELS, unfitting, type Command, type ItemKind } from "./keys.ts";
import type { Key } from "ink";
import { leafLedgerSuffix } from "./model.ts";
import { approvalQid, declineKey, type ApprovalItem } from "./panels/Approvals.tsx";
import type { GateRowItem } from "./panels/Gates.tsx";
import type { LeafItem } from "./panels/Graph.tsx";
import type { QueueItem } from "./panels/Queue.tsx";
import {
  MIN_READ_MS,
  modeOf,
  selectedIndex,
  tooSoon,
  type Action,
  type Confirm,
  type DashState,
  type ListKey,
} from "./state.ts";
import { PANEL_DEFS } from "./panels/index.ts";
import { fullStops, helpList, NOT_YET, pickList, unseenRows } from "./views.ts";

export interface ActsDeps {
  ui: () => UIState;
  live: { current: DashState };
  dispatch: (a: Action) => void;
  reload: () => void;
  exit: () => void;
  setProbes: (f: (m: Record<string, ProbeShown>) => Record<string, ProbeShown>) => void;
  openDemo?: () => Promise<{ root: string; scope: string; env?: Env; slots?: number }>;
  switchSource: (src: DashSource) => void;
  setBanner: (b: string) => void;
}

export interface Acts {
  perform(command: Command, name: string): void;
  onKey(input: string, key: Key): void;
  /** Select a row (a click). */
  select(list: ListKey, id: string, index: number): void;
}

export function makeActs(d: ActsDeps): Acts {
  const flash = (text: string, tone: "info" | "bad" | "warn" | "ok" = "info") =>
    d.dispatch({ type: "flash", text, tone });
  const selected = <T>(panel: (typeof PANELS)[number]): T | undefined => {
    const ui = d.ui();
    return ui.lists[panel].items[selectedIndex(d.live.current, panel, ui.lists[panel].ids)] as T | undefined;
  };
  const effects = makeEffects(d, flash);
  /** The selected item's kind in the live state (keys arriving in one chunk each see the last one's panel). */
  const kindNow = (): ItemKind | null => {
    const ui = d.ui();
    const panel = d.live.current.panel;
    const item = ui.lists[panel].items[selectedIndex(d.live.current, panel, ui.lists[panel].ids)];
    return ui.base && item !== undefined ? PANEL_DEFS[panel].kind(item, ui.base) : null;
  };

  const { active, move, back } = makeMovement(d);

  const navigation = (command: Command, name: string): boolean => {
    const s = d.live.current;
    const ui = d.ui();
    switch (command) {
      case "quit":
        d.exit();
        return true;
      case "help":
        d.dispatch({ type: "overlay", overlay: s.overlay === "help" ? null : "help" });
        d.dispatch({ type: "select", list: "help", id: "0", index: 0 });
        return true;
      case "back":
        back();
        return true;
      case "next-panel":
      case "prev-panel":
        d.dispatch({ type: "cycle", delta: command === "next-panel" ? 1 : -1 });
        return true;
      case "panel":
        d.dispatch({ type: "panel", panel: PANELS[Number(name) - 1]! });
        return true;
      case "down":
      case "up":
      case "page-down":
      case "page-up":
      case "first":
      case "last":
        move(command);
        return true;
      case "open":
        if (ui.lists[s.panel].items.length > 0 || (ui.data && PANEL_DEFS[s.panel].problem(ui.data)))
          d.dispatch({ type: "push", panel: s.panel, overlay: "detail" });
        return true;
      case "message":
        d.dispatch({ type: "push", panel: s.panel, overlay: "message" });
        return true;
      case "filter":
        d.dispatch({ type: "filter-start", list: modeOf(s) === "pick" ? "pick" : s.panel });
        return true;
      case "unmet":
        d.dispatch({ type: "unmet" });
        flash(s.unmetOnly ? "showing everything" : "showing only what is not done (u shows everything)");
        return true;
      case "scopes":
        d.dispatch({ type: "overlay", overlay: "pick" });
        return true;
      case "run-help": {
        const row =
          helpList(ui)[
            selectedIndex(
              s,
              "help",
              helpList(ui).map((_, i) => String(i)),
            )
          ];
        d.dispatch({ type: "overlay", overlay: null });
        if (!row?.run) return true;
        const def = lookup(row.run, modeOf(d.live.current), d.live.current.panel, kindNow());
        if (def) perform(def.command, row.run);
        return true;
      }
      default:
        return false;
    }
  };

  const perform = (command: Command, name: string): void => {
    if (navigation(command, name)) return;
    effects.perform(command, { selected, active });
  };

  const onKey = (input: string, key: Key): void => {
    const name = keyName(input, key);
    const s = d.live.current;
    const m = modeOf(s);
    d.dispatch({ type: "key" });
    const kind: ItemKind | null = m === "list" || m === "detail" || m === "confirm" ? kindNow() : null;
    const def = lookup(name, m, s.panel, kind);
    if (def) return perform(def.command, name);
    if (m === "confirm") {
      // Any other key cancels: nothing is recorded.
      const was = s.confirm;
      d.dispatch({ type: "confirm-end" });
      d.dispatch({ type: "back" });
      return flash(cancelled(was), "warn");
    }
    if ((m === "filter" || m === "prompt") && input && !key.ctrl && !key.meta && !/[\u0000-\u001f\u007f]/.test(input)) {
      return d.dispatch(m === "filter" ? { type: "filter-type", text: input } : { type: "evidence-type", text: input });
    }
    const other = unfitting(name, m, s.panel);
    if (other) flash(`${name} ${other.footer ?? other.command} is not for this item: ${other.help}`, "warn");
  };

  const select = (list: ListKey, id: string, index: number) => d.dispatch({ type: "select", list, id, index });
  return { perform, onKey, select };
}

/** What a cancelled confirmation left: nothing. */
const cancelled = (c: Confirm | null): string =>
  c?.act === "prune" ? "not confirmed: nothing was changed" : "not approved: nothing was recorded";

interface Pick {
  selected: <T>(panel: (typeof PANELS)[number]) => T | undefined;
  active: () => { key: ListKey; ids: readonly string[] };
}

/** Moving through lists and views: the list keys act on, a move, and esc's way back. */
function makeMovement(d: ActsDeps) {
  /** The list the movement keys act on now, with its ids. */
  const active = (): { key: ListKey; ids: readonly string[] } => {
    const ui = d.ui();
    const s = d.live.current;
    const m = modeOf(s);
    if (m === "help") return { key: "help", ids: helpList(ui).map((_, i) => String(i)) };
    if (m === "pick") return { key: "pick", ids: pickList(ui).ids };
    if (m === "detail" || m === "message" || m === "confirm")
      return { key: "detail", ids: fullStops({ ...ui, state: s }, ui.bodyHeight) };
    return { key: s.panel, ids: ui.lists[s.panel].ids };
  };

  const move = (command: Command): void => {
    const page = Math.max(1, d.ui().bodyHeight - 1);
    const delta = (
      { down: 1, up: -1, "page-down": page, "page-up": -page, first: -Infinity, last: Infinity } as Record<
        string,
        number
      >
    )[command]!;
    const { key, ids } = active();
    d.dispatch({ type: "move", list: key, delta, ids });
  };

  /** esc: clears a kept filter first, then goes back along the navigation stack, then closes a view. */
  const back = (): void => {
    const s = d.live.current;
    const list: ListKey = modeOf(s) === "pick" ? "pick" : s.panel;
    if (s.overlay === null || s.overlay === "pick") {
      if (s.filter[list]) return d.dispatch({ type: "filter-clear", list });
      if (s.overlay === "pick" && s.view?.kind !== "pick") return d.dispatch({ type: "overlay", overlay: null });
    }
    if (s.overlay === "help" || s.overlay === "message") return d.dispatch({ type: "overlay", overlay: null });
    d.dispatch({ type: "back" });
  };

  return { active, move, back };
}

type Flash = (text: string, tone?: "info" | "bad" | "warn" | "ok") => void;

/** The effects: each calls one dashboard op and reports back through actions. */
function makeRunner(d: ActsDeps, flash: Flash) {
  const scopeOf = () => d.ui().data?.snapshot.target.scope ?? null;
  const busy = (): boolean => {
    if (!d.live.current.busy) return false;
    flash("a check is still running: wait for it to finish", "warn");
    return true;
  };
  const done = () => {
    d.dispatch({ type: "busy", busy: false });
    d.reload();
  };

  /** Run approved gates in process; the files change, and the feed shows it. */
  const run = (qids: string[], reverify: boolean) => {
    if (qids.length === 0 || busy()) return;
    const src = d.ui().src;
    d.dispatch({ type: "busy", busy: true });
    runGates({
      root: src.root,
      scope: scopeOf(),
      qids,
      reverify,
      approve: false,
      env: src.env,
      events: {
        started: (qid) => d.dispatch({ type: "run-started", qid, at: Date.now() }),
        output: (qid, text) => d.dispatch({ type: "run-output", qid, text }),
        finished: (qid) => d.dispatch({ type: "run-finished", qid }),
      },
    })
      .then(
        (result) => flash(runSummary(result), result.runs.every((r) => r.outcome.ok) ? "ok" : "bad"),
        (e) => flash(`could not run: ${(e as Error).message}`, "bad"),
      )
      .finally(done);
  };

  const probe = (qid: string, approve: boolean) => {
    if (busy()) return;
    const src = d.ui().src;
    d.dispatch({ type: "busy", busy: true });
    flash(approve ? `approving and probing ${qid}…` : `probing ${qid} with its deliverable hidden…`);
    probeGate({ root: src.root, scope: scopeOf(), qid, approve, env: src.env })
      .then((shown) => {
        if (!shown)
          return flash(`${qid} was not probed: only a met runnable gate can be probed (r runs it first)`, "warn");
        d.dispatch({ type: "probe-request", qid, hidden: shown.needsApproval?.hidden ?? null });
        d.setProbes((m) => ({ ...m, [qid]: shown }));
        flash(shown.line, shown.tone);
      })
      .catch((e) => flash(`could not probe: ${(e as Error).message}`, "bad"))
      .finally(done);
  };

  const confirmed = () => {
    const c = d.live.current.confirm;
    // A key that came before the oracle could have been read was not the person's reading of it: refused, the question stays.
    const early = c ? tooSoon(c, Date.now()) : 0;
    if (c && early > 0) {
      const note = `Too soon: ${c.qid} was on screen for less than ${MIN_READ_MS / 1000} s, nothing was recorded; read it, then y. `;
      return d.dispatch({
        type: "confirm-start",
        confirm: { ...c, text: note + c.text.replace(/^Too soon: .*?then y\. /, "") },
      });
    }
    // A person's act binds what they saw: y counts once the whole view has been on screen
    // (scrolled to its last row, or all of it fits), never on its first rows alone.
    // The live state, not the last frame's: a y typed right after a is judged on the question it answers.
    const unseen = c ? unseenRows({ ...d.ui(), state: d.live.current }, c) : 0;
    if (unseen > 0)
      return flash(`${NOT_YET}${unseen} more row(s) below; j/pgdn/G shows them, then y (n cancels)`, "warn");
    d.dispatch({ type: "confirm-end" });
    d.dispatch({ type: "back" });
    if (!c) return;
    if (c.act === "approve-probe") return probe(c.qid, true);
    const src = d.ui().src;
    if (c.act === "prune") {
      return void confirmRemoved({ root: src.root, scope: scopeOf(), qid: c.qid, env: src.env })
        .then(
          (r) =>
            flash(
              r.status === "confirmed"
                ? `confirmed removed ${c.qid} (given via dashboard): it no longer blocks`
                : `${c.qid} is no longer REMOVED: nothing was changed`,
              r.status === "confirmed" ? "ok" : "warn",
            ),
          (e) => flash(`not confirmed: ${(e as Error).message}`, "bad"),
        )
        .finally(() => d.reload());
    }
    approveShown({ root: src.root, scope: scopeOf(), qid: c.qid, signature: c.signature, env: src.env })
      .then(
        (r) =>
          flash(
            r.status === "recorded"
              ? `approved ${c.qid} (given via dashboard); r runs it`
              : `${c.qid} was already approved`,
            "ok",
          ),
        (e) => flash(`not approved: ${(e as Error).message}`, "bad"),
      )
      .finally(() => d.reload());
  };

  const sign = (qid: string, evidence: string) => {
    if (evidence.trim() === "") return flash("not signed: the evidence text is empty", "warn");
    const src = d.ui().src;
    signShown({ root: src.root, scope: scopeOf(), qid, evidence })
      .then(
        (r) =>
          flash(r === "written" ? `signed ${qid} (given via dashboard)` : `${qid} already carries this evidence`, "ok"),
        (e) => flash(`not signed: ${(e as Error).message}`, "bad"),
      )
      .finally(() => d.reload());
  };

  const approve = (t: ApprovalItem) => {
    d.dispatch({ type: "undecline", key: declineKey(t) });
    const s = d.live.current;
    // The whole oracle is in view before the confirmation is asked.
    if (s.overlay !== "detail") d.dispatch({ type: "push", panel: s.panel, overlay: "detail" });
    const qid = approvalQid(t);
    const confirm: Confirm =
      t.kind === "check"
        ? {
            act: "approve",
            qid,
            signature: t.task.signature,
            text: `Approve ${qid} exactly as shown? y approves (runs nothing) · n cancels`,
          }
        : t.kind === "probe"
          ? {
              act: "approve-probe",
              qid,
              signature: t.hidden.join("\0"),
              text: `Approve the probe of ${qid}? y approves and probes · n cancels`,
            }
          : {
              act: "prune",
              qid,
              signature: t.where,
              text: `Confirm ${qid} was removed on purpose? y confirms (kbz forgets its records) · n cancels`,
            };
    d.dispatch({ type: "confirm-start", confirm });
  };

  const demo = () => {
    if (!d.openDemo) return;
    flash("preparing the demo…");
    d.openDemo().then(
      (x) => {
        d.setBanner("demo");
        const src = d.ui().src;
        d.switchSource({ ...src, root: x.root, scope: x.scope, env: x.env ?? src.env, slots: x.slots ?? src.slots });
        d.dispatch({ type: "scope-chosen" });
        d.dispatch({ type: "panel", panel: "graph" });
      },
      (e) => flash(`demo failed: ${(e as Error).message}`, "bad"),
    );
  };

  return { run, probe, confirmed, sign, approve, demo };
}

/** The commands that act on the selected item. */
function makeEffects(d: ActsDeps, flash: Flash) {
  const { run, probe, confirmed, sign, approve, demo } = makeRunner(d, flash);
  const acts = (command: Command, p: Pick): void => {
    const gate = p.selected<GateRowItem>("gates");
    const g = gate?.kind === "gate" ? gate.view : null;
    const s = d.live.current;
    switch (command) {
      case "leaf-gates": {
        const leaf = p.selected<LeafItem>("graph");
        if (!leaf) return;
        const suffix = leafLedgerSuffix(leaf.row.id);
        const target = d.ui().model.gates.find((r) => r.kind === "gate" && r.view.file.endsWith(suffix));
        if (!target || target.kind !== "gate") return flash(`leaf ${leaf.row.id} has no ledger ${suffix}`, "warn");
        return d.dispatch({
          type: "push",
          panel: "gates",
          overlay: null,
          select: { list: "gates", id: target.view.qid },
        });
      }
      case "show-graph": {
        const item = p.selected<QueueItem>("queue");
        if (item?.leaf)
          d.dispatch({ type: "push", panel: "graph", overlay: null, select: { list: "graph", id: item.leaf } });
        return;
      }
      case "run":
      case "reverify": {
        if (s.panel === "approvals") {
          const t = p.selected<ApprovalItem>("approvals");
          return flash(
            `${t ? approvalQid(t) : "it"} is not approved yet: a approves it (y confirms), then r runs it`,
            "warn",
          );
        }
        if (g && isRunnable(g.gate)) run([g.qid], command === "reverify");
        return;
      }
      case "run-ledger":
        if (g)
          run(
            d
              .ui()
              .data!.snapshot.gates.filter((x) => x.file === g.file && isRunnable(x.gate))
              .map((x) => x.qid),
            false,
          );
        return;
      case "probe":
        if (g) probe(g.qid, false);
        return;
      case "sign":
        if (g) d.dispatch({ type: "evidence-start", qid: g.qid });
        return;
      case "approve": {
        const t = p.selected<ApprovalItem>("approvals");
        if (t) approve(t);
        return;
      }
      case "decline": {
        const t = p.selected<ApprovalItem>("approvals");
        if (!t) return;
        d.dispatch({ type: "decline", key: declineKey(t) });
        flash(`declined ${approvalQid(t)}: it does not run and stays unmet`, "warn");
        return d.dispatch({ type: "move", list: "approvals", delta: 1, ids: d.ui().lists.approvals.ids });
      }
      case "confirm":
        return confirmed();
    }
    entry(command, p);
  };

  /** Text entry, the scope picker and the demo. */
  const entry = (command: Command, p: Pick): void => {
    const s = d.live.current;
    switch (command) {
      case "submit":
        if (s.editing?.kind === "filter") return d.dispatch({ type: "filter-end", keep: true });
        if (s.editing?.kind === "evidence") {
          const { qid, text } = s.editing;
          d.dispatch({ type: "evidence-end" });
          return sign(qid, text);
        }
        return;
      case "cancel":
        if (s.confirm) {
          const was = s.confirm;
          d.dispatch({ type: "confirm-end" });
          d.dispatch({ type: "back" });
          return flash(cancelled(was), "warn");
        }
        if (s.editing?.kind === "filter") return d.dispatch({ type: "filter-end", keep: false });
        return d.dispatch({ type: "evidence-end" });
      case "erase":
        return d.dispatch({ type: s.editing?.kind === "filter" ? "filter-erase" : "evidence-erase" });
      case "pick": {
        const list = pickList(d.ui());
        const chosen = list.items[selectedIndex(s, "pick", list.ids)];
        if (!chosen) return;
        d.dispatch({ type: "scope-chosen" });
        return d.switchSource({ ...d.ui().src, scope: chosen.scope });
      }
      case "demo":
        return demo();
    }
    void p;
  };

  return { perform: acts };
}
