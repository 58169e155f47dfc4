// Log: the tail of the scope's status.log, newest at the bottom.
import { Box, Text } from "ink";
import { List } from "../List.tsx";
import type { LogTail } from "../load.ts";
import { fit } from "../text.ts";
import type { Theme } from "../theme.ts";

export interface LogProps {
  log: LogTail;
  selected: number;
  width: number;
  height: number;
  theme: Theme;
}

export function Log({ log, selected, width, height, theme }: LogProps) {
  if (log.file === null) {
    return (
      <Box height={height}>
        <Text color={theme.tone("muted")}>{fit("no status log: this folder has no scope (.unlazy/<scope>/status.log)", width)}</Text>
      </Box>
    );
  }
  const problem = log.problem ? 1 : 0;
  return (
    <Box flexDirection="column" height={height}>
      {log.problem ? <Text color={theme.tone("bad")}>{fit(log.problem, width)}</Text> : null}
      <List
        items={log.lines}
        selected={selected}
        height={height - problem}
        theme={theme}
        empty="status.log is empty"
        row={(line, _i, active) => {
          // `<ISO time> <event>`: the time is dimmed so the events read as a column.
          const m = /^(\d{4}-\d\d-\d\dT\S+) (.*)$/.exec(line);
          if (!m) {
            return (
              <Text inverse={active} wrap="truncate">
                {fit(line, width)}
              </Text>
            );
          }
          return (
            <Text inverse={active} wrap="truncate">
              <Text color={theme.tone("muted")}>{fit(m[1]!, width)} </Text>
              <Text>{fit(m[2]!, Math.max(0, width - m[1]!.length - 1))}</Text>
            </Text>
          );
        }}
      />
    </Box>
  );
}
