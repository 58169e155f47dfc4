// A list that renders only its visible rows and keeps the selection in view.
import { Box, Text } from "ink";
import { useRef, type ReactNode } from "react";
import { scrollWindow } from "./scroll.ts";
import type { Theme } from "./theme.ts";

export interface ListProps<T> {
  items: readonly T[];
  selected: number;
  height: number;
  theme: Theme;
  /** Renders one visible row; `active` is true for the selected one. */
  row: (item: T, index: number, active: boolean) => ReactNode;
  empty?: string;
}

export function List<T>({ items, selected, height, theme, row, empty }: ListProps<T>) {
  const start = useRef(0);
  if (items.length === 0) {
    return (
      <Box height={height}>
        <Text color={theme.tone("muted")}>{empty ?? "(nothing here)"}</Text>
      </Box>
    );
  }
  // A list taller than its box shows a position line, so the rows get one less.
  const rows = items.length > height ? Math.max(1, height - 1) : height;
  start.current = scrollWindow(start.current, selected, items.length, rows);
  const visible = items.slice(start.current, start.current + rows);
  return (
    <Box flexDirection="column" height={height}>
      {visible.map((item, i) => {
        const index = start.current + i;
        return <Box key={index}>{row(item, index, index === selected)}</Box>;
      })}
      {items.length > height ? (
        <Text color={theme.tone("muted")}>
          {`  ${start.current + 1}-${start.current + visible.length} of ${items.length}`}
          {start.current + visible.length < items.length ? "  ↓ more" : ""}
        </Text>
      ) : null}
    </Box>
  );
}
