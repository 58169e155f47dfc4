// The `?` overlay: every key, in one screen.
import { Box, Text } from "ink";
import { fit } from "./text.ts";
import type { Theme } from "./theme.ts";

export const HELP_LINES: [string, string][] = [
  ["tab / shift-tab", "next / previous panel (also l h, → ←, 1-5)"],
  ["↑ ↓  k j", "move the selection"],
  ["pgup pgdn  g G", "page up / down, first / last"],
  ["enter", "open: a leaf's gates, a queued leaf on the graph, a scope, an approval in full"],
  ["r", "Gates: run the approved checks of the selected gate's ledger"],
  ["R", "Gates: re-verify that ledger (met gates run again)"],
  ["a", "Approvals: approve the selected check, then run it"],
  ["d", "Approvals: decline it (nothing runs)"],
  ["?", "this help (esc or ? closes it)"],
  ["q  ctrl-c", "quit"],
];

export function Help({ width, height, theme }: { width: number; height: number; theme: Theme }) {
  const keyWidth = 17;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold>{fit("Keys", width)}</Text>
      {HELP_LINES.slice(0, Math.max(0, height - 3)).map(([k, what]) => (
        <Text key={k} wrap="truncate">
          <Text color={theme.tone("info")}>{k.padEnd(keyWidth)}</Text>
          <Text>{fit(what, width - keyWidth)}</Text>
        </Text>
      ))}
      <Text> </Text>
      <Text color={theme.tone("muted")} wrap="truncate">
        {fit("States: ✓ verified  ● in flight  ◐ returned  ○ ready  · waiting  ✗ abandoned", width)}
      </Text>
    </Box>
  );
}
