// The `?` overlay: every key of the key table, scrollable at any height.
import type { DetailLine } from "./Detail.tsx";
import { FullView } from "./Detail.tsx";
import { helpRows } from "./keys.ts";

export function helpLines(): DetailLine[] {
  const lines: DetailLine[] = helpRows().map(([k, what]) => ({ label: k, value: what, tone: undefined }));
  lines.push({ label: "", value: "" });
  lines.push({ label: "states", value: "✓ verified  ● in flight  ◐ returned  ○ ready  · waiting  ✗ abandoned", tone: "muted" });
  return lines;
}

export const helpLabelMax = (width: number) => Math.min(18, Math.floor(width / 3));

export function Help({ top, height, width }: { top: number; height: number; width: number }) {
  return <FullView title="Keys (esc or ? closes)" lines={helpLines()} top={top} height={height} labelMax={helpLabelMax(width)} />;
}
