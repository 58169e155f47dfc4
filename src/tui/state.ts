// The dashboard's screen state as data: one pure reducer (state, action) → state. The view the
// watcher read arrives as an action too (`loaded`), so every change of the screen goes through
// here. Lists are addressed by the ids of their items, never by row index, so a row inserted
// above the selection leaves the same item selected; the index is kept only to land nearby when
// the selected item goes away. Effects (running checks, approving, signing, the demo) live in the
// container (container.tsx); they report back through actions.
import type { DashView } from "../ops/dashboard.ts";
import { PANELS, type Mode, type PanelId } from "./keys.ts";
import type { Tone } from "./theme.ts";

/** A list's key: a panel, the scope picker, the help, or a full view's scroll position. */
export type ListKey = PanelId | "pick" | "detail" | "help";

export interface Selection {
  id: string | null;
  index: number;
}

export interface Flash {
  text: string;
  tone: Tone;
  /** Increases with each message: a timer clears only the message it was set for. */
  seq: number;
}

export interface RunningCheck {
  qid: string;
  startedAt: number;
  /** The output so far (its end), streamed while it runs. */
  output: string;
}

/** A person's act waiting for its confirmation key (y). */
export interface Confirm {
  act: "approve" | "approve-probe" | "prune";
  qid: string;
  /** What was shown: the act binds exactly this (the oracle's signature). */
  signature: string;
  text: string;
  /**
   * The lowest top row the full view reached while this question was open (set by the reducer):
   * `y` counts only once the view's last row has been on screen (issue 44 item 6).
   */
  seen?: number;
  /** When the confirmation (over the whole oracle) was put on screen: a key sooner than MIN_READ_MS after it is refused. */
  shownAt?: number;
}

/**
 * The least time a person needs to have read what a confirmation shows (issue 41): a `y` sooner
 * than this after the oracle was put on screen was typed ahead, by a script or another process
 * writing into the terminal (tmux send-keys from the agent's shell), not by someone who read it.
 */
export const MIN_READ_MS = 1000;

/** How many ms too soon a confirming key at `now` is (0 when it may count). */
export function tooSoon(c: Confirm, now: number): number {
  return c.shownAt === undefined ? 0 : Math.max(0, c.shownAt + MIN_READ_MS - now);
}

/** Where esc goes back to: a panel and its overlay (enter and `o` push one). */
export interface NavEntry {
  panel: PanelId;
  overlay: DashState["overlay"];
}

export interface DashState {
  view: DashView | null;
  panel: PanelId;
  /** A full view over the list, the help, or the scope picker (null: the panel's list). */
  overlay: "detail" | "help" | "pick" | "message" | null;
  nav: readonly NavEntry[];
  sel: Partial<Record<ListKey, Selection>>;
  filter: Partial<Record<ListKey, string>>;
  /** Text being typed: a filter for a list, or evidence for signing a gate. */
  editing: { kind: "filter"; list: ListKey } | { kind: "evidence"; qid: string; text: string } | null;
  confirm: Confirm | null;
  /** Every list shows only what is not done yet. */
  unmetOnly: boolean;
  flash: Flash | null;
  /** The last message, kept after the flash clears (`m` shows it in full). */
  lastMessage: string | null;
  seq: number;
  declined: readonly string[];
  running: readonly RunningCheck[];
  busy: boolean;
  /** Probes that asked for a person's approval this session (qid → hidden paths). */
  probeRequests: Readonly<Record<string, string[]>>;
  /** Scopes known when the view was opened: a new one is announced, never opened. */
  scopes: readonly string[] | null;
}

export type Action =
  | { type: "loaded"; view: DashView }
  | { type: "panel"; panel: PanelId }
  | { type: "cycle"; delta: number }
  /** Move a list's selection by `delta` rows (±Infinity: to an end) within these ids. */
  | { type: "move"; list: ListKey; delta: number; ids: readonly string[] }
  /** Select this id in a list (a jump from another panel, a click). */
  | { type: "select"; list: ListKey; id: string; index?: number }
  | { type: "overlay"; overlay: DashState["overlay"] }
  /** Go somewhere esc comes back from: a panel (with the selection to show) or a full view. */
  | { type: "push"; panel: PanelId; overlay: DashState["overlay"]; select?: { list: ListKey; id: string } }
  | { type: "back" }
  | { type: "filter-start"; list: ListKey }
  | { type: "filter-type"; text: string }
  | { type: "filter-erase" }
  | { type: "filter-end"; keep: boolean }
  | { type: "filter-clear"; list: ListKey }
  | { type: "evidence-start"; qid: string }
  | { type: "evidence-type"; text: string }
  | { type: "evidence-erase" }
  | { type: "evidence-end" }
  | { type: "confirm-start"; confirm: Confirm }
  | { type: "confirm-end" }
  | { type: "unmet" }
  | { type: "flash"; text: string; tone?: Tone }
  /** Any key: a message on screen goes once the person acts. */
  | { type: "key" }
  /** A timer: clears the message `seq` if it is still the one shown. */
  | { type: "flash-expire"; seq: number }
  | { type: "decline"; key: string }
  | { type: "undecline"; key: string }
  | { type: "busy"; busy: boolean }
  | { type: "run-started"; qid: string; at: number }
  | { type: "run-output"; qid: string; text: string }
  | { type: "run-finished"; qid: string }
  | { type: "probe-request"; qid: string; hidden: string[] | null }
  | { type: "scope-chosen" };

/** Characters of a running check's output kept for the screen. */
export const RUN_OUTPUT_CHARS = 8192;

export function initialState(panel: PanelId = "gates", view: DashView | null = null): DashState {
  return {
    view,
    panel,
    overlay: null,
    nav: [],
    sel: {},
    filter: {},
    editing: null,
    confirm: null,
    unmetOnly: false,
    flash: null,
    lastMessage: null,
    seq: 0,
    declined: [],
    running: [],
    busy: false,
    probeRequests: {},
    scopes: view?.kind === "ready" ? view.data.scopes : null,
  };
}

/** Where a list's selection is now: the selected id's row, else the remembered row clamped. */
export function selectedIndex(state: DashState, list: ListKey, ids: readonly string[]): number {
  if (ids.length === 0) return 0;
  const s = state.sel[list];
  if (!s) return list === "log" ? ids.length - 1 : 0; // the Log starts at its newest line
  if (s.id !== null) {
    // The row it was on is the likely place (no insertion); else look it up.
    if (ids[s.index] === s.id) return s.index;
    const at = ids.indexOf(s.id);
    if (at >= 0) return at;
  }
  return Math.max(0, Math.min(ids.length - 1, s.index));
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

/** A new view: shown as read; a scope that appeared since is announced in one line. */
function loaded(state: DashState, view: DashView): DashState {
  // The reader hands back the same view when nothing changed: no new state, no new frame.
  if (view === state.view) return state;
  if (view.kind !== "ready") return { ...state, view };
  const now = view.data.scopes;
  const known = state.scopes;
  const added = known ? now.filter((s) => !known.includes(s)) : [];
  const next = { ...state, view, scopes: now };
  if (added.length === 0) return next;
  return withFlash(next, `new scope ${added.join(", ")}: S opens the scope picker (this view stays)`, "info");
}

function withFlash(state: DashState, text: string, tone: Tone = "info"): DashState {
  const seq = state.seq + 1;
  return { ...state, seq, flash: { text, tone, seq }, lastMessage: text };
}

function editingReduce(state: DashState, action: Action): DashState | null {
  switch (action.type) {
    case "filter-start":
      return { ...state, editing: { kind: "filter", list: action.list } };
    case "filter-type": {
      if (state.editing?.kind !== "filter") return state;
      const list = state.editing.list;
      return { ...state, filter: { ...state.filter, [list]: (state.filter[list] ?? "") + action.text } };
    }
    case "filter-erase": {
      if (state.editing?.kind !== "filter") return state;
      const list = state.editing.list;
      return { ...state, filter: { ...state.filter, [list]: [...(state.filter[list] ?? "")].slice(0, -1).join("") } };
    }
    case "filter-end": {
      if (state.editing?.kind !== "filter") return state;
      const list = state.editing.list;
      const filter = action.keep && state.filter[list] ? state.filter : { ...state.filter, [list]: "" };
      return { ...state, editing: null, filter };
    }
    case "filter-clear":
      return { ...state, filter: { ...state.filter, [action.list]: "" } };
    case "evidence-start":
      return { ...state, editing: { kind: "evidence", qid: action.qid, text: "" } };
    case "evidence-type":
      return state.editing?.kind === "evidence"
        ? { ...state, editing: { ...state.editing, text: state.editing.text + action.text } }
        : state;
    case "evidence-erase":
      return state.editing?.kind === "evidence"
        ? { ...state, editing: { ...state.editing, text: [...state.editing.text].slice(0, -1).join("") } }
        : state;
    case "evidence-end":
      return { ...state, editing: null };
    case "confirm-start":
      return {
        ...state,
        confirm: {
          ...action.confirm,
          seen: action.confirm.seen ?? state.sel.detail?.index ?? 0,
          shownAt: action.confirm.shownAt ?? Date.now(),
        },
      };
    case "confirm-end":
      return { ...state, confirm: null };
    default:
      return null;
  }
}

function runReduce(state: DashState, action: Action): DashState | null {
  switch (action.type) {
    case "busy":
      return { ...state, busy: action.busy, running: action.busy ? state.running : [] };
    case "run-started":
      return {
        ...state,
        running: [
          ...state.running.filter((r) => r.qid !== action.qid),
          { qid: action.qid, startedAt: action.at, output: "" },
        ],
      };
    case "run-output":
      return {
        ...state,
        running: state.running.map((r) =>
          r.qid === action.qid ? { ...r, output: (r.output + action.text).slice(-RUN_OUTPUT_CHARS) } : r,
        ),
      };
    case "run-finished":
      return { ...state, running: state.running.filter((r) => r.qid !== action.qid) };
    case "probe-request": {
      const { [action.qid]: _gone, ...rest } = state.probeRequests;
      return { ...state, probeRequests: action.hidden ? { ...rest, [action.qid]: action.hidden } : rest };
    }
    case "decline":
      return state.declined.includes(action.key) ? state : { ...state, declined: [...state.declined, action.key] };
    case "undecline":
      return { ...state, declined: state.declined.filter((k) => k !== action.key) };
    default:
      return null;
  }
}

export function reduce(state: DashState, action: Action): DashState {
  const edited = editingReduce(state, action) ?? runReduce(state, action);
  if (edited) return edited;
  switch (action.type) {
    case "loaded":
      return loaded(state, action.view);
    case "panel":
      return { ...state, panel: action.panel, overlay: state.overlay === "pick" ? "pick" : null };
    case "cycle": {
      const i = PANELS.indexOf(state.panel);
      return { ...state, panel: PANELS[(i + action.delta + PANELS.length * 8) % PANELS.length]!, overlay: null };
    }
    case "move": {
      const { ids, list } = action;
      if (ids.length === 0) return state;
      const from = selectedIndex(state, list, ids);
      const to = clamp(
        from + (Number.isFinite(action.delta) ? action.delta : action.delta > 0 ? ids.length : -ids.length),
        0,
        ids.length - 1,
      );
      const sel = { ...state.sel, [list]: { id: ids[to]!, index: to } };
      // Scrolling what is being approved: remember how far down it has been on screen.
      const confirm =
        state.confirm && list === "detail"
          ? { ...state.confirm, seen: Math.max(state.confirm.seen ?? 0, to) }
          : state.confirm;
      return { ...state, sel, confirm };
    }
    case "select":
      return { ...state, sel: { ...state.sel, [action.list]: { id: action.id, index: action.index ?? 0 } } };
    case "overlay":
      // A full view always opens at its top.
      return {
        ...state,
        overlay: action.overlay,
        sel:
          action.overlay === "detail" || action.overlay === "message"
            ? { ...state.sel, detail: { id: null, index: 0 } }
            : state.sel,
      };
    case "push": {
      const nav = [...state.nav, { panel: state.panel, overlay: state.overlay }].slice(-32);
      const sel = {
        ...state.sel,
        ...(action.select ? { [action.select.list]: { id: action.select.id, index: 0 } } : {}),
        ...(action.overlay === "detail" ? { detail: { id: null, index: 0 } } : {}),
      };
      return { ...state, nav, panel: action.panel, overlay: action.overlay, sel };
    }
    case "back": {
      const to = state.nav[state.nav.length - 1];
      if (!to) return { ...state, overlay: null };
      return { ...state, nav: state.nav.slice(0, -1), panel: to.panel, overlay: to.overlay };
    }
    case "unmet":
      return { ...state, unmetOnly: !state.unmetOnly };
    case "flash":
      return withFlash(state, action.text, action.tone);
    case "key":
      return state.flash ? { ...state, flash: null } : state;
    case "flash-expire":
      return state.flash?.seq === action.seq ? { ...state, flash: null } : state;
    case "scope-chosen":
      return { ...state, overlay: null, nav: [], sel: {}, filter: {}, editing: null, scopes: null };
  }
  return state;
}

/** The mode the key table is looked up in. */
export function modeOf(state: DashState): Mode {
  if (state.editing) return state.editing.kind === "filter" ? "filter" : "prompt";
  if (state.confirm) return "confirm";
  if (state.overlay === "help") return "help";
  const view = state.view?.kind ?? "ready";
  if (view === "pick" || state.overlay === "pick") return "pick";
  if (view === "empty") return "empty";
  if (state.overlay === "message") return "message";
  if (state.overlay === "detail") return "detail";
  return "list";
}
