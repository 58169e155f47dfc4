// Approvals: every runnable gate whose exact oracle has no approval, with everything the
// approval binds shown in full (CHECK, EXPECT, resolved CWD, shell, PATH). `a` approves and
// runs the selected one, `d` declines it for this session (nothing runs).
import { Box, Text } from "ink";
import { cwdShown, type CheckTask } from "../../io/check/plan.ts";
import { useUi } from "../context.tsx";
import { Detail, paneWant, type DetailLine } from "../Detail.tsx";
import { splitPane } from "../layout.ts";
import { List } from "../List.tsx";
import type { ApprovalsView } from "../approvals.ts";
import type { Listed, ListSpec } from "../model.ts";
import { fit, pad } from "../text.ts";

export function declineKey(t: CheckTask): string {
  return `${t.qid}\0${t.signature}`;
}

export function approvalSpec(declined: readonly string[]): ListSpec<CheckTask> {
  return {
    id: (t) => t.qid,
    text: (t) => `${t.qid} ${t.gate.title} ${t.gate.check ?? ""}`,
    done: (t) => declined.includes(declineKey(t)),
  };
}

export interface ApprovalsProps {
  view: ApprovalsView;
  list: Listed<CheckTask>;
  declined: readonly string[];
  selected: number;
}

export function approvalDetail(view: ApprovalsView, t: CheckTask | undefined, declined: boolean): DetailLine[] {
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

export function Approvals({ view, list, declined, selected }: ApprovalsProps) {
  const { theme, width, height } = useUi();
  if (view.problem) {
    return (
      <Box flexDirection="column" height={height}>
        <Text color={theme.tone("bad")}>{fit(`${view.problem} (enter shows it in full)`, width)}</Text>
      </Box>
    );
  }
  const items = list.items;
  const t = items[selected];
  const lines = approvalDetail(view, t, !!t && declined.includes(declineKey(t)));
  // The detail is what an approval binds: it gets the room, the list a third.
  const { list: listHeight, detail } = splitPane(height, Math.min(items.length, Math.max(1, Math.floor(height / 3) - 1)), paneWant(lines, width));
  return (
    <Box flexDirection="column" width={width} height={height}>
      <List
        items={items}
        selected={selected}
        height={listHeight}
        hidden={list.total - items.length}
        empty={list.total ? "no approval matches" : "every runnable gate's check is approved"}
        row={(t, _i, active) => {
          const off = declined.includes(declineKey(t));
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
      <Detail lines={lines} height={detail} hint="enter shows all" />
    </Box>
  );
}
