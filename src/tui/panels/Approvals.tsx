// Approvals: every runnable gate whose exact oracle has no approval, with everything the
// approval binds shown in full (CHECK, EXPECT, resolved CWD, shell, PATH). `a` approves and
// runs the selected one, `d` declines it for this session (nothing runs).
import { Box, Text } from "ink";
import { cwdShown, type CheckTask } from "../../core/check/plan.ts";
import { Detail, type DetailLine } from "../Detail.tsx";
import { List } from "../List.tsx";
import type { ApprovalsView } from "../approvals.ts";
import { fit, pad } from "../text.ts";
import type { Theme } from "../theme.ts";

export function declineKey(t: CheckTask): string {
  return `${t.qid}\0${t.signature}`;
}

export interface ApprovalsProps {
  view: ApprovalsView;
  declined: ReadonlySet<string>;
  selected: number;
  width: number;
  height: number;
  theme: Theme;
  /** Enter gives the detail the whole panel (a long PATH on a small terminal). */
  expanded?: boolean;
}

function approvalDetail(view: ApprovalsView, t: CheckTask | undefined, declined: boolean): DetailLine[] {
  if (!t) return [];
  return [
    { label: "gate", value: `${t.qid}  ${t.gate.title}`, wrap: true },
    { label: "CHECK", value: t.gate.check ?? "", wrap: true },
    { label: "EXPECT", value: t.gate.expect ?? "", wrap: true },
    { label: "CWD", value: cwdShown(t), wrap: true },
    { label: "shell", value: view.settings?.shell ?? "", wrap: true },
    { label: "PATH", value: t.oracle.path, wrap: true },
    { label: "", value: declined ? "declined: it will not run (a approves it after all)" : "a: approve and run now · d: decline", tone: declined ? "warn" : "info" },
  ];
}

export function Approvals({ view, declined, selected, width, height, theme, expanded }: ApprovalsProps) {
  if (view.problem) {
    return (
      <Box flexDirection="column" height={height}>
        <Text color={theme.tone("bad")}>{fit(view.problem, width)}</Text>
      </Box>
    );
  }
  const listHeight = expanded ? 1 : Math.max(2, Math.min(view.items.length + 1, Math.floor(height / 3)));
  return (
    <Box flexDirection="column" width={width} height={height}>
      <List
        items={view.items}
        selected={selected}
        height={listHeight}
        theme={theme}
        empty="every runnable gate's check is approved"
        row={(t, _i, active) => {
          const off = declined.has(declineKey(t));
          return (
            <Text inverse={active} wrap="truncate">
              <Text>{active ? "›" : " "} </Text>
              <Text color={theme.tone(off ? "muted" : "warn")}>{pad(off ? "DECLINED" : "APPROVE?", 10)}</Text>
              <Text bold>{pad(t.qid, 24)}</Text>
              <Text>{fit(t.gate.check ?? "", Math.max(0, width - 36))}</Text>
            </Text>
          );
        }}
      />
      <Detail
        lines={approvalDetail(view, view.items[selected], !!view.items[selected] && declined.has(declineKey(view.items[selected]!)))}
        width={width}
        height={height - listHeight}
        theme={theme}
        hint="enter shows all"
      />
    </Box>
  );
}
