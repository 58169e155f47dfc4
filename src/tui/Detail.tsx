// A fixed-height block of labelled lines under a list: the selected item's particulars.
import { Box, Text } from "ink";
import { fit, safe } from "./text.ts";
import type { Theme, Tone } from "./theme.ts";

export interface DetailLine {
  label: string;
  value: string;
  tone?: Tone;
  /** Show the whole value over several rows instead of cutting it (commands, PATH, errors). */
  wrap?: boolean;
}

/** Split wrapped lines into rows of at most `width` characters; continuation rows have no label. */
export function layoutDetail(lines: DetailLine[], width: number): DetailLine[] {
  const rows: DetailLine[] = [];
  for (const l of lines) {
    const value = safe(l.value);
    if (!l.wrap || value.length <= width || width <= 0) {
      rows.push(l);
      continue;
    }
    // Break after a space, colon or comma when one is in the second half of the row (PATH
    // entries, words); otherwise cut at the width. Every character is kept.
    let at = 0;
    while (at < value.length) {
      let end = Math.min(value.length, at + width);
      if (end < value.length) {
        const chunk = value.slice(at, end);
        const brk = Math.max(chunk.lastIndexOf(" "), chunk.lastIndexOf(":"), chunk.lastIndexOf(","));
        if (brk >= width / 2) end = at + brk + 1;
      }
      rows.push({ ...l, label: at === 0 ? l.label : "", value: value.slice(at, end), wrap: false });
      at = end;
    }
  }
  return rows;
}

export interface DetailProps {
  lines: DetailLine[];
  width: number;
  height: number;
  theme: Theme;
  /** How to see the rest when the lines do not fit. */
  hint?: string;
}

export function Detail({ lines, width, height, theme, hint }: DetailProps) {
  const labelWidth = Math.min(10, Math.max(0, ...lines.map((l) => l.label.length + 1)));
  const valueWidth = Math.max(1, width - labelWidth);
  const rows = layoutDetail(lines, valueWidth);
  const room = Math.max(0, height - 1);
  const shown = rows.length > room ? rows.slice(0, Math.max(0, room - 1)) : rows;
  return (
    <Box flexDirection="column" height={height}>
      <Text color={theme.tone("muted")}>{"─".repeat(Math.max(0, width))}</Text>
      {shown.map((l, i) => (
        <Text key={i} wrap="truncate">
          <Text color={theme.tone("muted")}>{l.label.padEnd(labelWidth)}</Text>
          <Text color={l.tone ? theme.tone(l.tone) : undefined}>{fit(l.value, valueWidth)}</Text>
        </Text>
      ))}
      {rows.length > room && room > 0 ? <Text color={theme.tone("muted")}>{fit(`(${rows.length - shown.length} more rows${hint ? `; ${hint}` : ""})`, width)}</Text> : null}
    </Box>
  );
}
