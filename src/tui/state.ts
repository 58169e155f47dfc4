// The dashboard's screen state as data: one pure reducer (state, action) → state. Lists are
// addressed by the ids of their items, never by row index, so a row inserted above the
// selection leaves the same item selected; the index is kept only to land nearby when the
// selected item goes away. Effects (running checks, signing, opening the demo) live in the App;
// they report back through actions.
import { PANELS, type Mode, type PanelId } from "./keys.ts";
import type { Tone } from "./theme.ts";

/** A list's key: a panel, the scope picker, or a full view's scroll position. */
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
}

export interface DashState {
  panel: PanelId;
  /** A full view over the list, the help, or the scope picker (null: the panel's list). */
  overlay: "detail" | "help" | "pick" | "message" | null;
  sel: Partial<Record<ListKey, Selection>>;
  filter: Partial<Record<ListKey, string>>;
  /** Text being typed: a filter for a list, or evidence for signing a gate. */
  editing: { kind: "filter"; list: ListKey } | { kind: "evidence"; qid: string; text: string } | null;
  /** Every list shows only what is not done yet. */
  unmetOnly: boolean;
  flash: Flash | null;
  /** The last message, kept after the flash clears (`m` shows it in full). */
  lastMessage: string | null;
  seq: number;
  declined: readonly string[];
  running: readonly RunningCheck[];
  busy: boolean;
}

export type Action =
  | { type: "panel"; panel: PanelId }
  | { type: "cycle"; delta: number }
  /** Move a list's selection by `delta` rows (±Infinity: to an end) within these ids. */
  | { type: "move"; list: ListKey; delta: number; ids: readonly string[] }
  /** Select this id in a list (a jump from another panel). */
  | { type: "select"; list: ListKey; id: string; index?: number }
  | { type: "overlay"; overlay: DashState["overlay"] }
  | { type: "filter-start"; list: ListKey }
  | { type: "filter-type"; text: string }
  | { type: "filter-erase" }
  | { type: "filter-end"; keep: boolean }
  | { type: "evidence-start"; qid: string }
  | { type: "evidence-type"; text: string }
  | { type: "evidence-erase" }
  | { type: "evidence-end" }
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
  | { type: "run-finished"; qid: string }
  | { type: "scope-chosen" };

export function initialState(panel: PanelId = "gates"): DashState {
  return {
    panel,
    overlay: null,
    sel: {},
    filter: {},
    editing: null,
    unmetOnly: false,
    flash: null,
    lastMessage: null,
    seq: 0,
    declined: [],
    running: [],
    busy: false,
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

export function reduce(state: DashState, action: Action): DashState {
  switch (action.type) {
    case "panel":
      return { ...state, panel: action.panel, overlay: state.overlay === "help" ? null : state.overlay === "pick" ? "pick" : null };
    case "cycle": {
      const i = PANELS.indexOf(state.panel);
      return { ...state, panel: PANELS[(i + action.delta + PANELS.length * 8) % PANELS.length]!, overlay: null };
    }
    case "move": {
      const { ids, list } = action;
      if (ids.length === 0) return state;
      const from = selectedIndex(state, list, ids);
      const to = clamp(from + (Number.isFinite(action.delta) ? action.delta : action.delta > 0 ? ids.length : -ids.length), 0, ids.length - 1);
      return { ...state, sel: { ...state.sel, [list]: { id: ids[to]!, index: to } } };
    }
    case "select":
      return { ...state, sel: { ...state.sel, [action.list]: { id: action.id, index: action.index ?? 0 } } };
    case "overlay":
      // A full view always opens at its top.
      return { ...state, overlay: action.overlay, sel: action.overlay === "detail" || action.overlay === "message" ? { ...state.sel, detail: { id: null, index: 0 } } : state.sel };
    case "filter-start":
      return { ...state, editing: { kind: "filter", list: action.list } };
    case "filter-type": {
      if (state.editing?.kind !== "filter") return state;
      const list = state.editing.list;
      // A changed filter starts at the first match, keeping the selected item when it still matches.
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
    case "evidence-start":
      return { ...state, editing: { kind: "evidence", qid: action.qid, text: "" } };
    case "evidence-type":
      return state.editing?.kind === "evidence" ? { ...state, editing: { ...state.editing, text: state.editing.text + action.text } } : state;
    case "evidence-erase":
      return state.editing?.kind === "evidence" ? { ...state, editing: { ...state.editing, text: [...state.editing.text].slice(0, -1).join("") } } : state;
    case "evidence-end":
      return { ...state, editing: null };
    case "unmet":
      return { ...state, unmetOnly: !state.unmetOnly };
    case "flash": {
      const seq = state.seq + 1;
      return { ...state, seq, flash: { text: action.text, tone: action.tone ?? "info", seq }, lastMessage: action.text };
    }
    case "key":
      return state.flash ? { ...state, flash: null } : state;
    case "flash-expire":
      return state.flash?.seq === action.seq ? { ...state, flash: null } : state;
    case "decline":
      return state.declined.includes(action.key) ? state : { ...state, declined: [...state.declined, action.key] };
    case "undecline":
      return { ...state, declined: state.declined.filter((k) => k !== action.key) };
    case "busy":
      return { ...state, busy: action.busy, running: action.busy ? state.running : [] };
    case "run-started":
      return { ...state, running: [...state.running, { qid: action.qid, startedAt: action.at }] };
    case "run-finished":
      return { ...state, running: state.running.filter((r) => r.qid !== action.qid) };
    case "scope-chosen":
      return { ...state, overlay: null, sel: {}, filter: {}, editing: null };
  }
}

/** The mode the key table is looked up in. */
export function modeOf(state: DashState, view: "ready" | "pick" | "empty" | "error"): Mode {
  if (state.editing) return state.editing.kind === "filter" ? "filter" : "prompt";
  if (state.overlay === "help") return "help";
  if (view === "pick" || state.overlay === "pick") return "pick";
  if (view === "empty") return "empty";
  if (state.overlay === "detail" || state.overlay === "message") return "detail";
  return "list";
}
