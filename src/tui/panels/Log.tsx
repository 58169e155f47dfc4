// Log: the tail of the scope's status.log, newest at the bottom.
import { Text } from "ink";
import type { LogTail } from "../../ops/dashboard.ts";
import type { ListSpec } from "../model.ts";
import type { PanelCtx, PanelDef } from "../panel.ts";
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

/** `HH:MM:SS` of an ISO time, in this terminal's time zone (the full time is in the full view). */
export function clock(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso.slice(11, 19);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function logRow(line: LogLine, active: boolean, ctx: PanelCtx) {
  const { theme, width } = ctx;
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
  const shown = clock(time);
  return (
    <Text inverse={active} wrap="truncate">
      <Text>{mark} </Text>
      <Text color={theme.tone("muted")}>{shown} </Text>
      <Text color={ATTENTION.test(event) ? theme.tone("bad") : undefined}>
        {fit(event, Math.max(0, width - cols(shown) - 3))}
      </Text>
    </Text>
  );
}

export const logPanel: PanelDef<LogLine> = {
  id: "log",
  spec: LOG_SPEC,
  items: (ctx) => ctx.model.log,
  problem: (data) => (data.log.lines.length === 0 ? data.log.problem : null),
  empty: (ctx) =>
    ctx.data.log.file === null
      ? "no status log: this folder has no scope (.unlazy/<scope>/status.log)"
      : "status.log is empty",
  head: (ctx, height) => (ctx.data.log.problem && height >= 4 ? [{ text: ctx.data.log.problem, tone: "bad" }] : []),
  row: logRow,
  summary: () => [],
  full: (line) => {
    const parts = splitTime(line.text);
    return {
      title: "Log line",
      lines: parts
        ? [
            { label: "time", value: parts[0] },
            { label: "event", value: parts[1], wrap: true },
          ]
        : [{ label: "", value: line.text, wrap: true }],
    };
  },
  kind: () => "line",
};
