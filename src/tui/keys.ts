// The one key table: the keyboard handler looks keys up here, the footer and the grouped `?`
// help are printed from it, so a key is defined once and shown where it works. A key that acts
// on the selected item names the item kinds it fits (`kinds`): it is offered, and works, only
// there (a manual gate is never offered `r run`, a runnable one never `s sign`).
import type { Key } from "ink";
import { kbz } from "../core/text/command.ts";

export const PANELS = ["graph", "queue", "gates", "approvals", "log"] as const;
export type PanelId = (typeof PANELS)[number];
export const TITLES: Record<PanelId, string> = {
  graph: "Graph",
  queue: "Queue",
  gates: "Gates",
  approvals: "Approvals",
  log: "Log",
};

/** What the screen is doing; a key works only where its entry says. */
export type Mode = "list" | "detail" | "message" | "help" | "pick" | "filter" | "prompt" | "confirm" | "empty";

/**
 * Where a key works: `any` (every mode but text entry and confirmation), a mode, a panel's list
 * (`gates`), or a panel's full view (`gates-detail`).
 */
export type Where = "any" | Mode | PanelId | `${PanelId}-detail`;

export type Command =
  | "quit"
  | "help"
  | "back"
  | "next-panel"
  | "prev-panel"
  | "panel"
  | "down"
  | "up"
  | "page-down"
  | "page-up"
  | "first"
  | "last"
  | "open"
  | "filter"
  | "unmet"
  | "scopes"
  | "message"
  | "leaf-gates"
  | "show-graph"
  | "run"
  | "reverify"
  | "probe"
  | "run-ledger"
  | "sign"
  | "approve"
  | "decline"
  | "confirm"
  | "pick"
  | "demo"
  | "run-help"
  | "submit"
  | "erase"
  | "cancel";

/** Kinds of selected item a key can fit (see each panel's `kind`). */
export type ItemKind =
  | "runnable"
  | "runnable-met"
  | "manual"
  | "problem"
  | "wave"
  | "check"
  | "probe"
  | "removed"
  | "leaf"
  | "queued"
  | "line";

export interface KeyDef {
  command: Command;
  /** Key names (see `keyName`); the first is the one the footer shows. */
  keys: string[];
  where: Where[];
  help: string;
  /** Short label for the footer; without one the key is only in the help. */
  footer?: string;
  /** The selected item kinds it fits; without it the key fits every item. */
  kinds?: ItemKind[];
}

const GATE_KINDS: ItemKind[] = ["runnable", "runnable-met", "manual"];

export const KEYS: KeyDef[] = [
  // Text entry and confirmation first: there every printable key is text or an answer.
  { command: "submit", keys: ["enter"], where: ["filter"], help: "keep the filter", footer: "keep" },
  { command: "cancel", keys: ["esc"], where: ["filter"], help: "clear the filter", footer: "clear" },
  { command: "submit", keys: ["enter"], where: ["prompt"], help: "sign with this evidence", footer: "sign" },
  { command: "cancel", keys: ["esc"], where: ["prompt"], help: "cancel without signing", footer: "cancel" },
  { command: "erase", keys: ["backspace"], where: ["filter", "prompt"], help: "delete the last character" },
  { command: "quit", keys: ["ctrl-c"], where: ["filter", "prompt", "confirm"], help: "quit" },
  {
    command: "confirm",
    keys: ["y"],
    where: ["confirm"],
    help: "confirm: the act is recorded as given via the dashboard",
    footer: "yes",
  },
  { command: "down", keys: ["j", "down"], where: ["confirm"], help: "scroll what is being approved" },
  { command: "up", keys: ["k", "up"], where: ["confirm"], help: "scroll up" },
  { command: "page-down", keys: ["pgdn"], where: ["confirm"], help: "page down" },
  { command: "page-up", keys: ["pgup"], where: ["confirm"], help: "page up" },
  { command: "last", keys: ["G", "end"], where: ["confirm"], help: "the last row (y counts once it was on screen)" },
  { command: "cancel", keys: ["n", "esc"], where: ["confirm"], help: "cancel: nothing is recorded", footer: "no" },

  {
    command: "open",
    keys: ["enter"],
    where: ["gates"],
    help: "the gate in full: CHECK, EXPECT, CWD, approval, evidence, last run's output",
    footer: "detail",
  },
  {
    command: "run",
    keys: ["r"],
    where: ["gates", "gates-detail"],
    help: "run this gate's check (when approved)",
    footer: "run",
    kinds: ["runnable", "runnable-met"],
  },
  {
    command: "reverify",
    keys: ["R"],
    where: ["gates", "gates-detail"],
    help: "re-verify this met gate (runs it again)",
    kinds: ["runnable-met"],
  },
  {
    command: "probe",
    keys: ["p"],
    where: ["gates", "gates-detail"],
    help: `probe this met gate (${kbz("check", { probe: true })}): its CHECK again with the deliverable hidden; VACUOUS if it still passes`,
    footer: "probe",
    kinds: ["runnable-met"],
  },
  {
    command: "run-ledger",
    keys: ["L"],
    where: ["gates"],
    help: "run every approved check of this gate's ledger",
    kinds: GATE_KINDS,
  },
  {
    command: "sign",
    keys: ["s"],
    where: ["gates", "gates-detail"],
    help: `sign this manual gate with evidence text (as ${kbz("sign")}; a person's act)`,
    footer: "sign",
    kinds: ["manual"],
  },
  {
    command: "open",
    keys: ["enter"],
    where: ["graph"],
    help: "the leaf in full: needs, dependents, gates, lease",
    footer: "detail",
  },
  {
    command: "leaf-gates",
    keys: ["o"],
    where: ["graph", "graph-detail"],
    help: "open the leaf's gates (esc comes back)",
    footer: "gates",
    kinds: ["leaf"],
  },
  {
    command: "open",
    keys: ["enter"],
    where: ["queue"],
    help: "the item in full (why it waits, what to do)",
    footer: "detail",
  },
  {
    command: "show-graph",
    keys: ["o"],
    where: ["queue", "queue-detail"],
    help: "show the leaf on the graph (esc comes back)",
    footer: "graph",
    kinds: ["queued"],
  },
  {
    command: "approve",
    keys: ["a"],
    where: ["approvals", "approvals-detail"],
    help: "approve what is shown (asks y to confirm; runs nothing)",
    footer: "approve",
    kinds: ["check", "probe"],
  },
  {
    command: "approve",
    keys: ["a"],
    where: ["approvals", "approvals-detail"],
    help: "confirm the removed gate is gone on purpose (asks y)",
    footer: "confirm removal",
    kinds: ["removed"],
  },
  {
    command: "run",
    keys: ["r"],
    where: ["approvals", "approvals-detail"],
    help: "run this approved check (approving never runs it)",
    kinds: ["check"],
  },
  {
    command: "decline",
    keys: ["d"],
    where: ["approvals", "approvals-detail"],
    help: "decline it for this session (nothing runs)",
    footer: "decline",
    kinds: ["check", "probe"],
  },
  {
    command: "open",
    keys: ["enter"],
    where: ["approvals"],
    help: "everything the approval binds, in full",
    footer: "detail",
  },
  { command: "open", keys: ["enter"], where: ["log"], help: "the line in full", footer: "full" },
  { command: "pick", keys: ["enter"], where: ["pick"], help: "open the selected scope", footer: "open" },
  { command: "demo", keys: ["enter"], where: ["empty"], help: "open the built-in demo", footer: "demo" },
  { command: "run-help", keys: ["enter"], where: ["help"], help: "run the selected key", footer: "run it" },

  {
    command: "back",
    keys: ["esc"],
    where: ["detail", "message", "help", "pick", "list"],
    help: "back: clears a kept filter, closes a view, returns where enter or o came from",
    footer: "back",
  },
  { command: "back", keys: ["enter"], where: ["detail", "message"], help: "close the full view" },
  { command: "help", keys: ["?"], where: ["any"], help: "this help (esc or ? closes it)", footer: "help" },
  {
    command: "filter",
    keys: ["/"],
    where: ["list", "pick"],
    help: "filter the list by text (esc clears it)",
    footer: "filter",
  },
  {
    command: "unmet",
    keys: ["u"],
    where: ["list"],
    help: "only what is not done: unmet gates, unverified leaves",
    footer: "unmet",
  },
  { command: "next-panel", keys: ["tab", "l", "right"], where: ["list"], help: "next panel" },
  { command: "prev-panel", keys: ["shift-tab", "h", "left"], where: ["list"], help: "previous panel" },
  { command: "panel", keys: ["1", "2", "3", "4", "5"], where: ["list", "detail", "message"], help: "panel by number" },
  {
    command: "down",
    keys: ["j", "down"],
    where: ["list", "detail", "message", "help", "pick"],
    help: "move down (scroll a full view)",
  },
  { command: "up", keys: ["k", "up"], where: ["list", "detail", "message", "help", "pick"], help: "move up" },
  { command: "page-down", keys: ["pgdn"], where: ["list", "detail", "message", "help", "pick"], help: "page down" },
  { command: "page-up", keys: ["pgup"], where: ["list", "detail", "message", "help", "pick"], help: "page up" },
  { command: "first", keys: ["g", "home"], where: ["list", "detail", "message", "help", "pick"], help: "first row" },
  {
    command: "last",
    keys: ["G", "end"],
    where: ["list", "detail", "message", "help", "pick"],
    help: "last row (the Log follows its tail there)",
  },
  { command: "scopes", keys: ["S"], where: ["list"], help: "pick another scope (each with its verdict and counts)" },
  { command: "message", keys: ["m"], where: ["list", "detail"], help: "the last message in full" },
  { command: "quit", keys: ["q", "ctrl-c"], where: ["any"], help: "quit", footer: "quit" },
];

/** Ink's input and key flags as one name: a character, or `enter`, `esc`, `up`, `ctrl-c`, … */
export function keyName(input: string, key: Key): string {
  if (key.ctrl && input === "c") return "ctrl-c";
  if (key.return) return "enter";
  if (key.escape) return "esc";
  if (key.tab) return key.shift ? "shift-tab" : "tab";
  if (key.upArrow) return "up";
  if (key.downArrow) return "down";
  if (key.leftArrow) return "left";
  if (key.rightArrow) return "right";
  if (key.pageUp) return "pgup";
  if (key.pageDown) return "pgdn";
  if (key.home) return "home";
  if (key.end) return "end";
  if (key.backspace || key.delete) return "backspace";
  return input;
}

/** The places a screen state matches, most specific first. */
export function wheres(mode: Mode, panel: PanelId): Where[] {
  switch (mode) {
    case "list":
      return [panel, "list", "any"];
    case "detail":
      return [`${panel}-detail`, "detail", "any"];
    case "filter":
    case "prompt":
    case "confirm":
      return [mode];
    default:
      return [mode, "any"];
  }
}

const fits = (k: KeyDef, kind: ItemKind | null) => !k.kinds || (kind !== null && k.kinds.includes(kind));

/** The entry a key name selects here for the selected item's kind, the most specific first. */
export function lookup(name: string, mode: Mode, panel: PanelId, kind: ItemKind | null = null): KeyDef | null {
  for (const w of wheres(mode, panel)) {
    const def = KEYS.find((k) => k.where.includes(w) && k.keys.includes(name) && fits(k, kind));
    if (def) return def;
  }
  return null;
}

/** A key the person pressed that exists here for another kind of item: what it is for. */
export function unfitting(name: string, mode: Mode, panel: PanelId): KeyDef | null {
  for (const w of wheres(mode, panel)) {
    const def = KEYS.find((k) => k.where.includes(w) && k.keys.includes(name));
    if (def) return def;
  }
  return null;
}

const SHOWN: Record<string, string> = {
  enter: "enter",
  esc: "esc",
  "shift-tab": "S-tab",
  pgdn: "pgdn",
  pgup: "pgup",
  backspace: "bksp",
};
export const shownKey = (k: string) => SHOWN[k] ?? k;

export interface Hint {
  key: string;
  label: string;
}

/** The last hints, kept when the footer is narrow (others drop first). */
const ALWAYS = new Set<Command>(["help", "quit"]);

/**
 * The footer's key hints for this screen state, in table order, each key once; `? help` and
 * `q quit` last. `back` is offered only when esc has somewhere to go.
 */
export function footerHints(mode: Mode, panel: PanelId, kind: ItemKind | null = null, canGoBack = true): Hint[] {
  const seen = new Set<string>();
  const out: Hint[] = [];
  const tail: Hint[] = [];
  for (const w of wheres(mode, panel)) {
    for (const k of KEYS) {
      if (!k.footer || !k.where.includes(w) || !fits(k, kind)) continue;
      if (k.command === "back" && !canGoBack) continue;
      const key = k.keys[0]!;
      if (seen.has(key)) continue;
      seen.add(key);
      (ALWAYS.has(k.command) ? tail : out).push({ key: shownKey(key), label: k.footer });
    }
  }
  return [...out, ...tail.sort((a, b) => (a.key === "?" ? -1 : b.key === "?" ? 1 : 0))];
}

/** The hints that fit `width` columns (` · ` between them): `? help · q quit` stay, the others drop from the end. */
export function fitHints(hints: Hint[], width: number): Hint[] {
  const len = (hs: Hint[]) => hs.reduce((n, h, i) => n + h.key.length + 1 + h.label.length + (i ? 3 : 0), 0);
  const kept = hints.filter((h) => h.label === "help" || h.label === "quit");
  const rest = hints.filter((h) => !kept.includes(h));
  while (rest.length > 0 && len([...rest, ...kept]) > width) rest.pop();
  const shown = [...rest, ...kept];
  if (len(shown) <= width) return shown;
  // Narrower than `? help · q quit`: the keys alone.
  return kept.map((h) => ({ key: h.key, label: h.label.slice(0, Math.max(1, Math.floor((width - 6) / 2))) }));
}

export interface HelpRow {
  group: string;
  keys: string;
  help: string;
  /** The key to run from the help (enter), when it runs something here. */
  run: string | null;
}

/** The grouped `?` help: this panel's keys first (they run from the help), then the global ones. */
export function helpRows(panel: PanelId, kind: ItemKind | null): HelpRow[] {
  const panelKeys = KEYS.filter((k) => k.where.includes(panel) || k.where.includes(`${panel}-detail`));
  const global = KEYS.filter(
    (k) =>
      !panelKeys.includes(k) &&
      !k.where.every(
        (w) =>
          ["filter", "prompt", "confirm", "pick", "empty", "help"].includes(w) ||
          (PANELS as readonly string[]).includes(w.replace(/-detail$/, "")),
      ),
  );
  const rows: HelpRow[] = [];
  for (const k of panelKeys)
    rows.push({
      group: TITLES[panel],
      keys: k.keys.map(shownKey).join(" "),
      help: fits(k, kind) ? k.help : `${k.help} (not for the selected item)`,
      run: fits(k, kind) ? k.keys[0]! : null,
    });
  for (const k of global) {
    if (k.command === "help") continue;
    rows.push({
      group: "everywhere",
      keys: k.keys.map(shownKey).join(" "),
      help: k.help,
      run: k.command === "back" ? null : k.keys[0]!,
    });
  }
  rows.push({
    group: "typing",
    keys: "/ s",
    help: "filter: enter keeps it, esc clears it; sign: enter signs, esc cancels",
    run: null,
  });
  return rows;
}

/** The numbers the tabs show: what waits for the person (approvals) and the queue. */
export function tabCounts(ui: {
  data: unknown;
  lists: Record<PanelId, { items: readonly unknown[] }>;
}): Partial<Record<PanelId, number>> {
  if (!ui.data) return {};
  return { approvals: ui.lists.approvals.items.length, queue: ui.lists.queue.items.length };
}

/** The tab row's labels at this width: numbers go first, then the titles shorten, so it never wraps. */
export function tabLabels(width: number, counts: Partial<Record<PanelId, number>>): string[] {
  const n = (p: PanelId) => (counts[p] ? ` ${counts[p]}` : "");
  const full = PANELS.map((p, i) => ` ${i + 1} ${TITLES[p]}${n(p)} `);
  const bare = PANELS.map((p) => ` ${TITLES[p]}${n(p)} `);
  const short = PANELS.map((p) => ` ${TITLES[p].slice(0, 3)} `);
  return [full, bare, short].find((l) => l.join("").length <= width) ?? short;
}
