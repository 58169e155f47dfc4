// What the overlays show, derived from the container's state: the full view (enter), the last
// message, a confirmation's subject, the grouped help, and the scope picker's rows. The screen
// draws them and the keys scroll and run them, from the same functions.
import { listScopes } from "../ops/dashboard.ts";
import { scopeSummary, type ScopeSummary } from "../ops/dashboardScopes.ts";
import type { UIState } from "./container.tsx";
import { fullViewStops, type DetailLine } from "./Detail.tsx";
import { helpRows, TITLES, type HelpRow } from "./keys.ts";
import { listed, type Listed } from "./model.ts";
import { PANEL_DEFS } from "./panels/index.ts";
import type { Confirm } from "./state.ts";

export interface FullContent {
  title: string;
  lines: DetailLine[];
}

/** The full view on screen now: a confirmation's subject, the last message, or the selected item (enter). */
export function fullView(ui: UIState): FullContent | null {
  const { state, data, base } = ui;
  if (state.overlay === "message")
    return { title: "Last message", lines: [{ label: "", value: state.lastMessage ?? "(none)", wrap: true }] };
  if ((state.overlay !== "detail" && !state.confirm) || !data || !base) return null;
  const def = PANEL_DEFS[state.panel];
  const problem = def.problem(data);
  if (problem)
    return {
      title: `${TITLES[state.panel]}: why it cannot show`,
      lines: [{ label: "", value: problem, tone: "bad", wrap: true }],
    };
  const item = ui.lists[state.panel].items[ui.selectedOf(state.panel)];
  if (item === undefined) return null;
  const full = def.full(item, { ...base, width: ui.width, wide: false, shown: ui.lists[state.panel].items });
  if (!state.confirm) return full;
  return { title: state.confirm.text, lines: full.lines };
}

/** Scroll positions of the full view on screen (j/k move between them). */
export function fullStops(ui: UIState, height: number): string[] {
  const f = fullView(ui);
  return stops(f ? fullViewStops(f.lines, ui.width, height) : 1);
}

/** How a refused y begins (the footer shows it in place of the question's hint). */
export const NOT_YET = "not yet: ";

/**
 * How many scroll positions of the view being confirmed have not been reached yet: 0 once its
 * last row has been on screen (issue 44 item 6: at 40x10 `y` approved with rows 1-3 of 21 shown).
 */
export function unseenRows(ui: UIState, confirm: Confirm): number {
  const last = fullStops(ui, ui.bodyHeight).length - 1;
  return Math.max(0, last - (confirm.seen ?? 0));
}

export const stops = (n: number): string[] => Array.from({ length: Math.max(1, n) }, (_, i) => String(i));

/** The grouped help for the panel on screen, as selectable rows. */
export function helpList(ui: UIState): HelpRow[] {
  return helpRows(ui.state.panel, ui.kind);
}

const PICK_SPEC = {
  id: (s: ScopeSummary) => s.scope,
  text: (s: ScopeSummary) => `${s.scope} ${s.verdict}`,
  done: (s: ScopeSummary) => s.tone === "ok",
};
let pickMemo: { key: string; rows: ScopeSummary[] } | null = null;

/** The scope picker's rows (each scope's verdict), read when it opens and after each reload. */
export function pickList(ui: UIState): Listed<ScopeSummary> {
  const view = ui.state.view;
  const picking = view?.kind === "pick" || ui.state.overlay === "pick";
  if (!picking) return { items: [], ids: [], total: 0 };
  const names = view?.kind === "pick" ? view.scopes : listScopes(ui.src.root);
  const key = `${ui.src.root}\0${names.join("\0")}\0${ui.data?.hash ?? view?.kind}`;
  if (pickMemo?.key !== key) pickMemo = { key, rows: names.map((s) => scopeSummary(ui.src.root, s)) };
  return listed(pickMemo.rows, PICK_SPEC, ui.state.filter.pick, false);
}
