// The `?` help, grouped: this panel's keys (those that fit the selected item run from here with
// enter), then the keys that work everywhere, then the state glyphs.
import { Box, Text } from "ink";
import { useUi } from "./context.tsx";
import type { HelpRow } from "./keys.ts";
import { List } from "./List.tsx";
import { fit, pad } from "./text.ts";

export const helpLabelMax = (width: number) => Math.min(18, Math.floor(width / 3));

const STATES =
  "gates: ✓ met · unmet ✗ failed ~ stale ? no evidence ⚑ abandoned; leaves: ✓ verified ● in flight ◐ returned ○ ready · waiting";

export function HelpList({ rows, selected }: { rows: HelpRow[]; selected: number }) {
  const { theme, width, height } = useUi();
  const keyW = helpLabelMax(width);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {fit("Keys: enter runs the selected one · esc or ? closes", width)}
      </Text>
      <List
        items={rows}
        selected={selected}
        height={Math.max(1, height - (height >= 6 ? 2 : 1))}
        row={(r, i, active) => {
          const group = i === 0 || rows[i - 1]!.group !== r.group;
          return (
            <Text inverse={active} wrap="truncate">
              <Text color={theme.tone("accent")}>
                {pad(group ? r.group.slice(0, 10) : "", Math.min(11, Math.floor(width / 4)))}
              </Text>
              <Text bold color={r.run ? theme.tone("info") : theme.tone("muted")}>
                {pad(r.keys, keyW)}
              </Text>
              <Text color={r.run ? undefined : theme.tone("muted")}>
                {fit(r.help, Math.max(0, width - keyW - Math.min(11, Math.floor(width / 4))))}
              </Text>
            </Text>
          );
        }}
      />
      {height >= 6 ? (
        <Text color={theme.tone("muted")} wrap="truncate">
          {fit(STATES, width)}
        </Text>
      ) : null}
    </Box>
  );
}
