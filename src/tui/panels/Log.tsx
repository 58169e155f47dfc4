// Log: the tail of the scope's status.log, newest at the bottom.
import { Box, Text } from "ink";
import { useUi } from "../context.tsx";
import { List } from "../List.tsx";
import type { LogTail } from "../load.ts";
import type { Listed, ListSpec } from "../model.ts";
import { cols, fit } from "../text.ts";

export interface LogLine {
  n: number; // position in the tail
  text: string;
}

export function logLines(log: LogTail): LogLine[] {
  return log.lines.map((text, n) => ({ n, text }));
}

/** Lines that need attention: what the unmet-only toggle keeps. */
const ATTENTION = /\b(fail(ed|s)?|unmet|error|invalid|abandon(ed)?|refused|timed out|declined)\b/i;

export const LOG_SPEC: ListSpec<LogLine> = {
  id: (l) => String(l.n),
  text: (l) => l.text,
  done: (l) => !ATTENTION.test(l.text),
};

/** `<ISO time> <event>`: the time is dimmed so the events read as a column. */
export function splitTime(line: string): [string, string] | null {
  const m = /^(\d{4}-\d\d-\d\dT\S+) (.*)$/.exec(line);
  return m ? [m[1]!, m[2]!] : null;
}

export interface LogProps {
  log: LogTail;
  list: Listed<LogLine>;
  selected: number;
}

export function Log({ log, list, selected }: LogProps) {
  const { theme, width, height } = useUi();
  if (log.file === null) {
    return (
      <Box height={height}>
        <Text color={theme.tone("muted")}>{fit("no status log: this folder has no scope (.unlazy/<scope>/status.log)", width)}</Text>
      </Box>
    );
  }
  const problem = log.problem && height >= 4 ? 1 : 0;
  return (
    <Box flexDirection="column" height={height}>
      {problem ? <Text color={theme.tone("bad")}>{fit(log.problem!, width)}</Text> : null}
      <List
        items={list.items}
        selected={selected}
        height={height - problem}
        hidden={list.total - list.items.length}
        empty={list.total ? "no line matches" : "status.log is empty"}
        row={(line, _i, active) => {
          const parts = splitTime(line.text);
          const mark = active ? "›" : " ";
          if (!parts) {
            return (
              <Text inverse={active} wrap="truncate">
                {fit(`${mark} ${line.text}`, width)}
              </Text>
            );
          }
          const [time, event] = parts;
          // Narrow terminals keep the time of day only.
          const shown = width < 70 ? time.replace(/^\d{4}-\d\d-\d\dT/, "").replace(/\.\d+Z$/, "") : time;
          return (
            <Text inverse={active} wrap="truncate">
              <Text>{mark} </Text>
              <Text color={theme.tone("muted")}>{fit(shown, width - 2)} </Text>
              <Text>{fit(event, Math.max(0, width - cols(shown) - 3))}</Text>
            </Text>
          );
        }}
      />
    </Box>
  );
}
