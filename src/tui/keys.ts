// The one key table: the keyboard handler looks keys up here, the footer and the `?` help are
// printed from it, so a key is defined once and shown where it works.
import type { Key } from "ink";

export const PANELS = ["graph", "queue", "gates", "approvals", "log"] as const;
export type PanelId = (typeof PANELS)[number];
export const TITLES: Record<PanelId, string> = { graph: "Graph", queue: "Queue", gates: "Gates", approvals: "Approvals", log: "Log" };

/** What the screen is doing; a key works only where its entry says. */
export type Mode = "list" | "detail" | "help" | "pick" | "filter" | "prompt" | "empty";

/**
 * Where a key works: `any` (every mode but text entry), a mode, a panel's list (`gates`), or a
 * panel's full view (`gates-detail`).
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
  | "pick"
  | "demo"
  | "submit"
  | "erase"
  | "cancel";

export interface KeyDef {
  command: Command;
  /** Key names (see `keyName`); the first is the one the footer shows. */
  keys: string[];
  where: Where[];
  help: string;
  /** Short label for the footer; without one the key is only in the help. */
  footer?: string;
}

export const KEYS: KeyDef[] = [
  // Text entry first: there every printable key is text.
  { command: "submit", keys: ["enter"], where: ["filter"], help: "keep the filter", footer: "keep" },
  { command: "cancel", keys: ["esc"], where: ["filter"], help: "clear the filter", footer: "clear" },
  { command: "submit", keys: ["enter"], where: ["prompt"], help: "sign with this evidence", footer: "sign" },
  { command: "cancel", keys: ["esc"], where: ["prompt"], help: "cancel without signing", footer: "cancel" },
  { command: "erase", keys: ["backspace"], where: ["filter", "prompt"], help: "delete the last character" },
  { command: "quit", keys: ["ctrl-c"], where: ["filter", "prompt"], help: "quit" },

  { command: "open", keys: ["enter"], where: ["gates"], help: "Gates: the gate in full: CHECK, EXPECT, CWD, approval, evidence, last run's output", footer: "detail" },
  { command: "run", keys: ["r"], where: ["gates", "gates-detail"], help: "Gates: run this gate's check (when approved)", footer: "run" },
  { command: "reverify", keys: ["R"], where: ["gates", "gates-detail"], help: "Gates: re-verify this gate (runs even when met)" },
  { command: "probe", keys: ["p"], where: ["gates", "gates-detail"], help: "Gates: probe this met gate (as kbz check --probe): re-run its CHECK with its deliverable hidden; VACUOUS if it still passes", footer: "probe" },
  { command: "run-ledger", keys: ["L"], where: ["gates"], help: "Gates: run every approved check of this gate's ledger" },
  { command: "sign", keys: ["s"], where: ["gates", "gates-detail"], help: "Gates: sign this manual gate with evidence text (as kbz sign)", footer: "sign" },
  { command: "open", keys: ["enter"], where: ["graph"], help: "Graph: the leaf in full: needs, dependents, gates, lease", footer: "detail" },
  { command: "leaf-gates", keys: ["o"], where: ["graph", "graph-detail"], help: "Graph: open the leaf's gates", footer: "gates" },
  { command: "open", keys: ["enter"], where: ["queue"], help: "Queue: the item in full (why it waits, what to do)", footer: "detail" },
  { command: "show-graph", keys: ["o"], where: ["queue", "queue-detail"], help: "Queue: show the leaf on the graph", footer: "graph" },
  { command: "approve", keys: ["a"], where: ["approvals", "approvals-detail"], help: "Approvals: approve the selected check, then run it", footer: "approve+run" },
  { command: "decline", keys: ["d"], where: ["approvals", "approvals-detail"], help: "Approvals: decline it (nothing runs)", footer: "decline" },
  { command: "open", keys: ["enter"], where: ["approvals"], help: "Approvals: everything the approval binds, in full", footer: "detail" },
  { command: "open", keys: ["enter"], where: ["log"], help: "Log: the line in full", footer: "full" },
  { command: "pick", keys: ["enter"], where: ["pick"], help: "Scopes: open the selected scope", footer: "open" },
  { command: "demo", keys: ["enter"], where: ["empty"], help: "open the built-in demo", footer: "demo" },

  { command: "back", keys: ["esc", "enter"], where: ["detail"], help: "close the full view", footer: "back" },
  { command: "help", keys: ["?"], where: ["any"], help: "this help (esc or ? closes it)", footer: "help" },
  { command: "back", keys: ["esc"], where: ["help", "pick"], help: "close the help or the scope picker" },
  { command: "filter", keys: ["/"], where: ["list", "pick"], help: "filter the list by text (esc clears)", footer: "filter" },
  { command: "unmet", keys: ["u"], where: ["list"], help: "only what is not done: unmet gates, unverified leaves", footer: "unmet" },
  { command: "next-panel", keys: ["tab", "l", "right"], where: ["list"], help: "next panel" },
  { command: "prev-panel", keys: ["shift-tab", "h", "left"], where: ["list"], help: "previous panel" },
  { command: "panel", keys: ["1", "2", "3", "4", "5"], where: ["list"], help: "panel by number" },
  { command: "down", keys: ["j", "down"], where: ["list", "detail", "help", "pick"], help: "move down (scroll a full view)" },
  { command: "up", keys: ["k", "up"], where: ["list", "detail", "help", "pick"], help: "move up" },
  { command: "page-down", keys: ["pgdn"], where: ["list", "detail", "help", "pick"], help: "page down" },
  { command: "page-up", keys: ["pgup"], where: ["list", "detail", "help", "pick"], help: "page up" },
  { command: "first", keys: ["g", "home"], where: ["list", "detail", "help", "pick"], help: "first row" },
  { command: "last", keys: ["G", "end"], where: ["list", "detail", "help", "pick"], help: "last row (the Log follows its tail there)" },
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
      return [mode];
    default:
      return [mode, "any"];
  }
}

/** The entry a key name selects here, the most specific first. */
export function lookup(name: string, mode: Mode, panel: PanelId): KeyDef | null {
  for (const w of wheres(mode, panel)) {
    const def = KEYS.find((k) => k.where.includes(w) && k.keys.includes(name));
    if (def) return def;
  }
  return null;
}

const SHOWN: Record<string, string> = { enter: "enter", esc: "esc", "shift-tab": "S-tab", pgdn: "pgdn", pgup: "pgup", backspace: "bksp" };

/** The footer's key hints for this screen state, in table order, each entry once. */
export function footerHints(mode: Mode, panel: PanelId): string[] {
  const ws = wheres(mode, panel);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of ws) {
    for (const k of KEYS) {
      if (!k.footer || !k.where.includes(w)) continue;
      const key = k.keys[0]!;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(`${SHOWN[key] ?? key} ${k.footer}`);
    }
  }
  return out;
}

/** The `?` help: every entry of the table as `keys  what it does`. */
export function helpRows(): [string, string][] {
  const rows: [string, string][] = [];
  const panelOnly = (k: KeyDef) => k.where.every((w) => (PANELS as readonly string[]).includes(w.replace(/-detail$/, "")) || w === "pick" || w === "empty");
  // Keys that work everywhere first, then each panel's own.
  const order = [...KEYS.filter((k) => !panelOnly(k)), ...KEYS.filter(panelOnly)];
  for (const k of order) {
    if (k.where.includes("filter") || k.where.includes("prompt")) continue;
    rows.push([k.keys.map((x) => SHOWN[x] ?? x).join(" "), k.help]);
  }
  rows.push(["/ typing", "filter: enter keeps it, esc clears it; sign: enter signs, esc cancels"]);
  return rows;
}
