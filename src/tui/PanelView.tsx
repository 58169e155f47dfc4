// The one layout every panel is drawn with: lines above the list, the list, and the selected
// item's detail: under the list (sharing its rows, layout.ts), or beside it from SIDE_BY_SIDE
// columns, where it shows what the full view shows (a gate's last run output included).
import { Box, Text } from "ink";
import { UiProvider, useUi } from "./context.tsx";
import { Detail, paneWant } from "./Detail.tsx";
import { splitPane } from "./layout.ts";
import { List } from "./List.tsx";
import type { Listed } from "./model.ts";
import { SIDE_BY_SIDE, type AnyPanel, type BaseCtx, type PanelCtx } from "./panel.ts";
import { fit } from "./text.ts";

export interface PanelViewProps {
  def: AnyPanel;
  list: Listed<unknown>;
  selected: number;
  ctx: BaseCtx;
  /** Where clicks land: the list's first screen row within the body and its first visible index. */
  onGeometry?: (listTop: number, start: number) => void;
}

/** Columns of the list beside its detail. */
export function listColumns(width: number): number {
  return width >= SIDE_BY_SIDE ? Math.max(48, Math.floor(width * 0.42)) : width;
}

export function PanelView({ def, list, selected, ctx, onGeometry }: PanelViewProps) {
  const { theme, width, height } = useUi();
  const wide = width >= SIDE_BY_SIDE;
  const listW = listColumns(width);
  // Beside the detail, the rows keep one column free before the rule.
  const pctx: PanelCtx = { ...ctx, width: wide ? listW - 1 : listW, wide, shown: list.items };
  const problem = def.problem(ctx.data);
  if (problem) {
    return (
      <Box height={height}>
        <Text color={theme.tone("bad")} wrap="truncate">
          {fit(`${problem} (enter shows it in full)`, width)}
        </Text>
      </Box>
    );
  }
  const head = (def.head?.(pctx, height) ?? []).slice(0, Math.max(0, height - 1));
  const item = list.items[selected];
  const detailW = wide ? width - listW - 1 : width;
  const lines = item === undefined ? [] : def.summary(item, { ...pctx, width: detailW });
  const state = ctx.state;
  const key = state.panel;
  const unhide = state.filter[key]
    ? `esc clears the filter /${state.filter[key]}`
    : state.unmetOnly
      ? "u shows everything"
      : undefined;
  const rowsLeft = height - head.length;
  const split = wide ? { list: rowsLeft, detail: 0 } : splitPane(rowsLeft, list.items.length, paneWant(lines, width));
  const listBox = (
    <Box flexDirection="column" width={listW} height={height}>
      {head.map((h, i) => (
        <Text key={i} color={h.tone ? theme.tone(h.tone) : undefined} bold={h.bold} wrap="truncate">
          {fit(h.text, listW)}
        </Text>
      ))}
      <UiProvider width={listW}>
        <List
          items={list.items}
          selected={selected}
          height={split.list}
          hidden={list.total - list.items.length}
          unhide={unhide}
          empty={def.empty(pctx)}
          onWindow={(start) => onGeometry?.(head.length, start)}
          row={(it, i, active) => def.row(it, active, pctx, i)}
        />
      </UiProvider>
      {!wide ? <Detail lines={lines} height={split.detail} /> : null}
    </Box>
  );
  if (!wide) return listBox;
  return (
    <Box flexDirection="row" width={width} height={height}>
      {listBox}
      <Box flexDirection="column" width={1} height={height}>
        {Array.from({ length: height }, (_, i) => (
          <Text key={i} color={theme.tone("muted")}>
            │
          </Text>
        ))}
      </Box>
      <UiProvider width={detailW} height={height}>
        <Box flexDirection="column" width={detailW} height={height}>
          <Detail lines={lines} height={height} rule={false} hint="enter shows all" tail />
        </Box>
      </UiProvider>
    </Box>
  );
}
