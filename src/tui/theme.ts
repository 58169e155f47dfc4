// Colours by meaning, not by panel. NO_COLOR (any non-empty value, no-color.org) drops every
// colour; selection and emphasis then rely on inverse/bold and on the text itself, which
// always names the state, so nothing is conveyed by colour alone.
import type { GateState } from "../core/ledger/state.ts";

export type Tone = "ok" | "bad" | "warn" | "info" | "active" | "muted" | "accent";

export interface Theme {
  color: boolean;
  tone(t: Tone): string | undefined;
}

const PALETTE: Record<Tone, string> = {
  ok: "green",
  bad: "red",
  warn: "yellow",
  info: "cyan",
  active: "blue",
  muted: "gray",
  accent: "magenta",
};

export function makeTheme(env: Record<string, string | undefined> = process.env): Theme {
  const color = !env.NO_COLOR;
  return { color, tone: (t) => (color ? PALETTE[t] : undefined) };
}

export const GATE_TONE: Record<GateState, Tone> = {
  met: "ok",
  unmet: "bad",
  failed: "bad",
  "stale-unmet": "warn",
  "unmet-no-evidence": "warn",
  unattested: "warn",
  vacuous: "bad",
  abandoned: "accent",
};

export { GATE_LABEL } from "../core/ledger/state.ts";

/** The state column below 80 columns: one glyph each. */
export const GATE_GLYPH: Record<GateState, string> = {
  met: "✓",
  unmet: "·",
  failed: "✗",
  "stale-unmet": "~",
  "unmet-no-evidence": "?",
  unattested: "!",
  vacuous: "∅",
  abandoned: "⚑",
};

/** Leaf states shown on the graph: the PLAN states plus `returned` from dispatch.json. */
export type LeafView = "waiting" | "ready" | "in-flight" | "returned" | "verified" | "abandoned";

export const LEAF_TONE: Record<LeafView, Tone> = {
  waiting: "muted",
  ready: "info",
  "in-flight": "active",
  returned: "warn",
  verified: "ok",
  abandoned: "accent",
};

export const LEAF_GLYPH: Record<LeafView, string> = {
  waiting: "·",
  ready: "○",
  "in-flight": "●",
  returned: "◐",
  verified: "✓",
  abandoned: "✗",
};
