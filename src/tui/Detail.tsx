// Labelled lines about the selected item: a pane under a list (cut to its rows, saying how
// many more there are), or the full view that enter opens (every character, scrollable).
import { Box, Text } from "ink";
import { useUi } from "./context.tsx";
import { cols, fit, pad, wrap } from "./text.ts";
import type { Tone } from "./theme.ts";

export interface DetailLine {
  label: string;
  value: string;
  tone?: Tone;
  /** Show the whole value over several rows instead of cutting it (commands, PATH, errors). */
  wrap?: boolean;
  /** Keep the value's own line breaks (a command's output). */
  block?: boolean;
  /** Set on the screen rows laid out from a `block` line. */
  fromBlock?: boolean;
}

/** Widest label column the lines need (at most 11 columns). */
export function labelWidth(lines: DetailLine[], max = 11): number {
  let w = 0;
  for (const l of lines) w = Math.max(w, cols(l.label) + 1);
  return Math.min(max, w);
}

/**
 * One row per screen line: wrapped values become several rows (continuations have no label);
 * with `all` every value wraps, so nothing is cut.
 */
export function layoutDetail(lines: DetailLine[], width: number, all = false): DetailLine[] {
  const rows: DetailLine[] = [];
  for (const l of lines) {
    if (!(l.wrap || l.block || all) || width <= 0) {
      rows.push(l);
      continue;
    }
    const parts = wrap(l.value, width, !!l.block);
    if (parts.length === 0) parts.push("");
    parts.forEach((value, i) =>
      rows.push({ ...l, label: i === 0 ? l.label : "", value, wrap: false, block: false, fromBlock: !!l.block }),
    );
  }
  return rows;
}

/** Rows a detail pane needs to show every line (its rule included) at this width. */
export function paneWant(lines: DetailLine[], width: number): number {
  if (lines.length === 0) return 0;
  return layoutDetail(lines, Math.max(1, width - labelWidth(lines))).length + 1;
}

function Row({ line, labelW, valueW }: { line: DetailLine; labelW: number; valueW: number }) {
  const { theme } = useUi();
  return (
    <Text wrap="truncate">
      <Text color={theme.tone("muted")}>{pad(line.label, labelW)}</Text>
      <Text color={line.tone ? theme.tone(line.tone) : undefined}>{fit(line.value, valueW)}</Text>
    </Text>
  );
}

export interface DetailProps {
  lines: DetailLine[];
  height: number;
  /** How to see the rest when the lines do not fit. */
  hint?: string;
  /** A rule above the lines (a pane under a list); a pane beside one has none. */
  rule?: boolean;
  /** When cut, keep the end of an output block (its last rows say why a run failed). */
  tail?: boolean;
}

/** The rows a pane of `room` rows shows, and how many it leaves out. */
export function paneRows(rows: DetailLine[], room: number, tail: boolean): { shown: DetailLine[]; left: number } {
  if (rows.length <= room) return { shown: rows, left: 0 };
  const keep = Math.max(0, room - 1);
  const block = tail ? rows.findIndex((r) => r.fromBlock) : -1;
  if (block < 0 || block >= keep) return { shown: rows.slice(0, keep), left: rows.length - keep };
  // The rows before the output, then its last rows.
  const end = Math.max(1, keep - block);
  return { shown: [...rows.slice(0, block), ...rows.slice(rows.length - end)], left: rows.length - block - end };
}

/** A pane of `height` rows beside or under a list: a rule, then as many lines as fit. */
export function Detail({ lines, height, hint, rule = true, tail = false }: DetailProps) {
  const { theme, width } = useUi();
  if (height <= 0) return null;
  const labelW = labelWidth(lines);
  const valueW = Math.max(1, width - labelW);
  const rows = layoutDetail(lines, valueW);
  const room = Math.max(0, height - (rule ? 1 : 0));
  const { shown, left } = paneRows(rows, room, tail);
  return (
    <Box flexDirection="column" height={height}>
      {rule ? <Text color={theme.tone("muted")}>{"─".repeat(Math.max(0, width))}</Text> : null}
      {shown.map((l, i) => (
        <Row key={i} line={l} labelW={labelW} valueW={valueW} />
      ))}
      {left > 0 && room > 0 ? (
        <Text color={theme.tone("muted")}>{fit(`(${left} more rows; ${hint ?? "enter shows all"})`, width)}</Text>
      ) : null}
    </Box>
  );
}

/** The rows of a full view at this width (the App scrolls through them). */
export function fullRows(lines: DetailLine[], width: number, labelMax = 11): { rows: DetailLine[]; labelW: number } {
  const labelW = labelWidth(lines, labelMax);
  return { rows: layoutDetail(lines, Math.max(1, width - labelW), true), labelW };
}

export interface FullViewProps {
  title: string;
  lines: DetailLine[];
  /** First row shown. */
  top: number;
  height: number;
  labelMax?: number;
}

/** The full view: a title, every row of every value, a position line when it scrolls. */
export function FullView({ title, lines, top, height, labelMax }: FullViewProps) {
  const { theme, width } = useUi();
  const { rows, labelW } = fullRows(lines, width, labelMax);
  const room = Math.max(0, height - 1);
  const scrolls = rows.length > room;
  const body = scrolls ? Math.max(0, room - 1) : room;
  const start = Math.max(0, Math.min(top, rows.length - body));
  const shown = rows.slice(start, start + body);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {fit(title, width)}
      </Text>
      {shown.map((l, i) => (
        <Row key={i} line={l} labelW={labelW} valueW={Math.max(1, width - labelW)} />
      ))}
      {scrolls && room > 0 ? (
        <Text color={theme.tone("muted")} wrap="truncate">
          {fit(
            `  rows ${start + 1}-${start + shown.length} of ${rows.length}${start + shown.length < rows.length ? "  ↓ j/pgdn" : ""}`,
            width,
          )}
        </Text>
      ) : null}
    </Box>
  );
}

/** How many scroll positions a full view has (its top row can be 0 … rows − body). */
export function fullViewStops(lines: DetailLine[], width: number, height: number, labelMax?: number): number {
  const { rows } = fullRows(lines, width, labelMax);
  const room = Math.max(0, height - 1);
  const body = rows.length > room ? Math.max(1, room - 1) : room;
  return Math.max(1, rows.length - body + 1);
}
