// A dashboard panel drawn alone, from data read with the dashboard's own op, through the one
// layout every panel uses (PanelView): what the panel tests look at.
import type { ReactElement } from "react";
import { readDashboard, type DashData } from "../../src/ops/dashboard.ts";
import { buildModel, listed } from "../../src/tui/model.ts";
import type { AnyPanel, BaseCtx } from "../../src/tui/panel.ts";
import { PanelView } from "../../src/tui/PanelView.tsx";
import { initialState, type DashState } from "../../src/tui/state.ts";
import { makeTheme } from "../../src/tui/theme.ts";
import { inBox } from "./ink.ts";

const plain = makeTheme({ NO_COLOR: "1" });

/** The dashboard's data for a folder, as the dashboard reads it. */
export function loadData(
  root: string,
  scope: string | null = null,
  slots = 4,
  env: Record<string, string | undefined> = process.env,
): DashData {
  const v = readDashboard({ root, scope, slots, env });
  if (v.kind !== "ready")
    throw new Error(`expected a ready view, got ${v.kind}${v.kind === "error" ? `: ${v.message}` : ""}`);
  return v.data;
}

export interface PanelOptions {
  selected?: number;
  width?: number;
  height?: number;
  state?: Partial<DashState>;
  now?: number;
  slots?: number;
  env?: Record<string, string | undefined>;
}

export function panelElement(def: AnyPanel, data: DashData, o: PanelOptions = {}): ReactElement {
  const model = buildModel(data, null);
  const state: DashState = { ...initialState(def.id), ...o.state };
  const base: BaseCtx = {
    data,
    model,
    state,
    theme: plain,
    now: o.now ?? 0,
    env: o.env ?? process.env,
    slots: o.slots ?? 3,
    probes: {},
  };
  const list = listed(def.items(base), def.spec, state.filter[def.id], state.unmetOnly);
  return inBox(
    <PanelView def={def} list={list} selected={o.selected ?? 0} ctx={base} />,
    o.width ?? 80,
    o.height ?? 20,
    plain,
  );
}
