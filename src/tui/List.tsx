// A list that renders only its visible rows and keeps the selection in view.
import { Box, Text } from "ink";
import { useRef, type ReactNode } from "react";
import { useUi } from "./context.tsx";
import { scrollWindow } from "./scroll.ts";
import { fit } from "./text.ts";

export interface ListProps<T> {
  items: readonly T[];
  selected: number;
  height: number;
  /** Renders one visible row; `active` is true for the selected one. */
  row: (item: T, index: number, active: boolean) => ReactNode;
  empty?: string;
  /** Rows hidden by a filter or the unmet-only toggle, said on the position line. */
  hidden?: number;
  /** What brings hidden rows back (`esc clears the filter`, `u shows everything`). */
  unhide?: string;
  /** Told the first visible index after each render (mouse clicks map rows to items). */
  onWindow?: (start: number) => void;
}

export function List<T>({ items, selected, height, row, empty, hidden = 0, unhide, onWindow }: ListProps<T>) {
  const { theme, width } = useUi();
  const start = useRef(0);
  if (height <= 0) return null;
  if (items.length === 0) {
    return (
      <Box height={height}>
        <Text color={theme.tone("muted")}>
          {fit(
            `${empty ?? "(nothing here)"}${hidden ? ` (${hidden} hidden: ${unhide ?? "esc clears the filter"})` : ""}`,
            width,
          )}
        </Text>
      </Box>
    );
  }
  // A list taller than its box shows a position line when the box has room for one, so the rows
  // get one less; a box of one or two rows shows rows only.
  const positionLine = (items.length > height || hidden > 0) && height >= 3;
  const rows = positionLine ? height - 1 : height;
  start.current = scrollWindow(start.current, selected, items.length, rows);
  onWindow?.(start.current);
  const visible = items.slice(start.current, start.current + rows);
  return (
    <Box flexDirection="column" height={height}>
      {visible.map((item, i) => {
        const index = start.current + i;
        return <Box key={index}>{row(item, index, index === selected)}</Box>;
      })}
      {positionLine ? (
        <Text color={theme.tone("muted")} wrap="truncate">
          {fit(
            `  ${start.current + 1}-${start.current + visible.length} of ${items.length}${start.current + visible.length < items.length ? "  ↓ more" : ""}${hidden ? `  (${hidden} hidden)` : ""}`,
            width,
          )}
        </Text>
      ) : null}
    </Box>
  );
}
