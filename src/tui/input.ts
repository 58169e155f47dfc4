// The keyboard and the mouse. Keys go through the one key table (acts.ts); the mouse (SGR
// reports, which run.tsx turns on for a terminal) scrolls the list with the wheel and selects
// with a click: a tab switches the panel, a row selects its item.
import { useInput, useStdin, type Key } from "ink";
import { useCallback, useEffect, useRef } from "react";
import type { Acts } from "./acts.ts";
import type { UIState } from "./container.tsx";
import { PANELS, tabCounts, tabLabels } from "./keys.ts";
import { modeOf } from "./state.ts";

/** Where the current list is drawn: its first row within the body, and its first visible index. */
export interface Geometry {
  listTop: number;
  start: number;
}

/** An SGR mouse report: `ESC [ < button ; column ; row M|m` (1-based cells). */
export const MOUSE = /^\u001b?\[<(\d+);(\d+);(\d+)([Mm])$/;

export function useKeyboard(acts: Acts, active: boolean): void {
  const onInput = (input: string, key: Key) => {
    if (MOUSE.test(input)) return;
    // Ink delivers plain characters that arrive together as one input ("jjj", "\t\t").
    if (input.length > 1 && !input.includes("\u001b")) {
      for (const ch of input) acts.onKey(ch, { ...key, tab: ch === "\t", return: ch === "\r" });
      return;
    }
    acts.onKey(input, key);
  };
  // One subscription for the dashboard's life: Ink re-subscribes whenever the handler changes,
  // and a key arriving between a commit and the re-subscription would be lost.
  const handler = useRef(onInput);
  handler.current = onInput;
  const stable = useCallback((input: string, key: Key) => handler.current(input, key), []);
  useInput(stable, { isActive: active });
}

/** The panel whose tab is drawn at `column` of the tab row. */
export function tabAt(
  column: number,
  width: number,
  counts: Partial<Record<(typeof PANELS)[number], number>>,
): (typeof PANELS)[number] | null {
  const labels = tabLabels(width, counts);
  let x = 0;
  for (let i = 0; i < labels.length; i++) {
    const w = labels[i]!.length;
    if (column >= x && column < x + w) return PANELS[i]!;
    x += w;
  }
  return null;
}

export function useMouse(acts: Acts, ui: { current: UIState }, geometry: Geometry, active: boolean): void {
  const { internal_eventEmitter } = useStdin() as unknown as {
    internal_eventEmitter?: {
      on(e: string, f: (d: string) => void): void;
      removeListener(e: string, f: (d: string) => void): void;
    };
  };
  useEffect(() => {
    if (!active || !internal_eventEmitter) return;
    const onData = (data: string) => {
      const m = MOUSE.exec(data);
      if (!m || m[4] !== "M") return;
      const button = Number(m[1]);
      const col = Number(m[2]) - 1;
      const row = Number(m[3]) - 1;
      const u = ui.current;
      const mode = modeOf(u.state);
      if (button === 64 || button === 65) return acts.perform(button === 64 ? "up" : "down", "");
      if (button !== 0) return;
      if (row === 1) {
        const p = tabAt(col, u.width, tabCounts(u));
        if (p) acts.perform("panel", String(PANELS.indexOf(p) + 1));
        return;
      }
      if (mode !== "list") return;
      const bodyTop = 2 + (u.banner === "demo" ? 1 : 0);
      const index = geometry.start + (row - bodyTop - geometry.listTop);
      const list = u.lists[u.state.panel];
      if (row - bodyTop < geometry.listTop || index < 0 || index >= list.items.length) return;
      acts.select(u.state.panel, list.ids[index]!, index);
    };
    internal_eventEmitter.on("input", onData);
    return () => internal_eventEmitter.removeListener("input", onData);
  }, [acts, ui, geometry, active, internal_eventEmitter]);
}
