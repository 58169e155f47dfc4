// What a panel is: one definition object each (list, detail, keys, footer), so the container
// never switches on the panel id. The container derives each panel's list from the loaded data,
// the key table offers the keys that fit the selected item's kind, and one layout
// (PanelView.tsx) draws every panel: the list with its detail pane below, or beside it from
// SIDE_BY_SIDE columns.
import type { ReactNode } from "react";
import type { DashData } from "../ops/dashboard.ts";
import type { ProbeShown } from "../ops/dashboardActs.ts";
import type { DetailLine } from "./Detail.tsx";
import type { Env } from "../io/run/shell.ts";
import type { ItemKind, PanelId } from "./keys.ts";
import type { Listed, ListSpec, Model } from "./model.ts";
import type { DashState } from "./state.ts";
import type { Theme, Tone } from "./theme.ts";

/** From this many columns the detail stands beside the list instead of under it. */
export const SIDE_BY_SIDE = 160;
/** Below this many columns states are glyphs and id columns fit their content. */
export const NARROW = 80;

/** What a panel reads to draw and describe its items. */
export interface PanelCtx {
  data: DashData;
  model: Model;
  state: DashState;
  /** Columns of the list (the whole width, or the list's side). */
  width: number;
  theme: Theme;
  now: number;
  env: Env;
  slots: number;
  probes: Readonly<Record<string, ProbeShown>>;
  /** The wide layout: the detail pane shows what the full view shows. */
  wide: boolean;
  /** This panel's items as listed now (filtered), for rows that look at their neighbours. */
  shown: readonly unknown[];
}

/** What a panel reads before it is laid out. */
export type BaseCtx = Omit<PanelCtx, "width" | "wide" | "shown">;

/** A line above the list (the Queue's verdict, a problem). */
export interface HeadLine {
  text: string;
  tone?: Tone;
  bold?: boolean;
}

export interface PanelDef<T> {
  id: PanelId;
  spec: ListSpec<T>;
  items(ctx: BaseCtx): readonly T[];
  /** A panel that shows a problem instead of its list (enter shows it in full). */
  problem(data: DashData): string | null;
  /** What the list says when it is empty (the filter's hidden count is added by the list). */
  empty(ctx: PanelCtx): string;
  head?(ctx: PanelCtx, height: number): HeadLine[];
  row(item: T, active: boolean, ctx: PanelCtx, index: number): ReactNode;
  /** The pane beside or under the list: the selected item in short (wide: in full). */
  summary(item: T, ctx: PanelCtx): DetailLine[];
  /** The full view (enter). */
  full(item: T, ctx: PanelCtx): { title: string; lines: DetailLine[] };
  kind(item: T, ctx: BaseCtx): ItemKind;
}

// The registry is typed loosely once, here, so panels keep their own item types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPanel = PanelDef<any>;

export type Lists = Record<PanelId, Listed<unknown>>;
