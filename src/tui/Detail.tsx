// A fixed-height block of labelled lines under a list: the selected item's particulars.
import { Box, Text } from "ink";
import { fit } from "./text.ts";
import type { Theme, Tone } from "./theme.ts";

export interface DetailLine {
  label: string;
  value: string;
  tone?: Tone;
}

export function Detail({ lines, width, height, theme }: { lines: DetailLine[]; width: number; height: number; theme: Theme }) {
  const labelWidth = Math.min(10, Math.max(0, ...lines.map((l) => l.label.length + 1)));
  const shown = lines.slice(0, Math.max(0, height - 1));
  return (
    <Box flexDirection="column" height={height}>
      <Text color={theme.tone("muted")}>{"─".repeat(Math.max(0, width))}</Text>
      {shown.map((l, i) => (
        <Text key={i} wrap="truncate">
          <Text color={theme.tone("muted")}>{l.label ? l.label.padEnd(labelWidth) : ""}</Text>
          <Text color={l.tone ? theme.tone(l.tone) : undefined}>{fit(l.value, width - (l.label ? labelWidth : 0))}</Text>
        </Text>
      ))}
    </Box>
  );
}
