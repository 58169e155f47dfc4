// The dashboard shell: header, panel tabs, the active panel, a footer; one keyboard handler.
import { Box, Text, useApp, useInput, useStdin, type Key } from "ink";
import { useEffect, useMemo, useState } from "react";
import { verdictLines } from "../core/ledger/state.ts";
import { Help } from "./Help.tsx";
import { List } from "./List.tsx";
import type { Env } from "../core/run/shell.ts";
import { runGates, runSummary } from "./approvals.ts";
import type { DashData, DashSource, DashView } from "./load.ts";
import { Approvals, declineKey } from "./panels/Approvals.tsx";
import { Gates, gateRows, type GateRowItem, type RunningCheck } from "./panels/Gates.tsx";
import { Graph, graphRows, type LeafItem } from "./panels/Graph.tsx";
import { Log } from "./panels/Log.tsx";
import { Queue, queueItems, type QueueItem } from "./panels/Queue.tsx";
import { moveSelection } from "./scroll.ts";
import { fit } from "./text.ts";
import { makeTheme, type Theme } from "./theme.ts";
import { useSnapshot } from "./useSnapshot.ts";
import { useTerminalSize } from "./useTerminalSize.ts";

export const PANELS = ["graph", "queue", "gates", "approvals", "log"] as const;
export type PanelId = (typeof PANELS)[number];
const TITLES: Record<PanelId, string> = { graph: "Graph", queue: "Queue", gates: "Gates", approvals: "Approvals", log: "Log" };

export interface AppProps {
  root: string;
  scope: string | null;
  theme?: Theme;
  watch?: boolean;
  initialPanel?: PanelId;
  /** The Queue's `kbz next --slots` (total concurrent leaves of the scope). */
  slots?: number;
  /** PATH, shell and approval store for Approvals and runs (default: this process's). */
  env?: Env;
  /** Offered when the folder has no ledgers: prepares the demo and returns where it lives. */
  openDemo?: () => Promise<{ root: string; scope: string; env?: Env }>;
  /** Shown in the header (the demo says what it is). */
  banner?: string;
}

/** Rows the chrome takes: header, tabs, footer. The frame is one row shorter than the terminal. */
const CHROME_ROWS = 3;
export const DEFAULT_SLOTS = 4;

export function App(props: AppProps) {
  const theme = props.theme ?? makeTheme();
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  const size = useTerminalSize();
  const [src, setSrc] = useState<DashSource>(() => ({
    root: props.root,
    scope: props.scope,
    slots: props.slots ?? DEFAULT_SLOTS,
    env: props.env ?? process.env,
  }));
  const [banner, setBanner] = useState(props.banner ?? "");
  const snap = useSnapshot(src, { watch: props.watch ?? true });
  const view = snap.view;
  const [panel, setPanel] = useState<PanelId>(props.initialPanel ?? "gates");
  const [sel, setSel] = useState<Record<string, number>>({});
  const [help, setHelp] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [running, setRunning] = useState<RunningCheck[]>([]);
  const [busy, setBusy] = useState(false);
  const [declined, setDeclined] = useState<ReadonlySet<string>>(new Set());
  const [expanded, setExpanded] = useState(false);
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    if (running.length === 0) return;
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, [running.length]);

  const width = Math.max(20, size.columns);
  const frameRows = Math.max(6, size.rows - 1);
  const bodyHeight = frameRows - CHROME_ROWS;
  const data = view.kind === "ready" ? view.data : null;
  const rows = useMemo(() => (data ? gateRows(data) : []), [data]);
  const leaves = useMemo(() => graphRows(data?.plan ?? null), [data]);
  const queue = useMemo(() => queueItems(data?.plan ?? null), [data]);
  const pending = data?.approvals.items ?? [];
  const counts: Record<PanelId, number> = {
    graph: leaves.length,
    queue: queue.length,
    gates: rows.length,
    approvals: pending.length,
    log: data?.log.lines.length ?? 0,
  };
  const pickCount = view.kind === "pick" ? view.scopes.length : 0;
  const selKey = view.kind === "pick" ? "pick" : panel;
  const count = view.kind === "pick" ? pickCount : counts[panel];
  // The log follows its tail until the person scrolls up.
  const selectedIn = (s: Record<string, number>) =>
    Math.min(s[selKey] ?? (selKey === "log" ? Number.MAX_SAFE_INTEGER : 0), Math.max(0, count - 1));
  const selected = selectedIn(sel);

  // Functional updates: several keys can arrive in one chunk (key repeat, fast typing).
  const move = (delta: number) => setSel((s) => ({ ...s, [selKey]: moveSelection(selectedIn(s), delta, count) }));
  const cycle = (delta: number) => setPanel((p) => PANELS[(PANELS.indexOf(p) + delta + PANELS.length) % PANELS.length]!);
  const jump = (to: PanelId, index: number) => {
    setPanel(to);
    if (index >= 0) setSel((s) => ({ ...s, [to]: index }));
  };

  /** Run (or approve and run) gates in process; the files change, the watcher and reload show it. */
  const run = (qids: string[], reverify: boolean, approve: boolean) => {
    if (busy || qids.length === 0) return;
    setBusy(true);
    setMessage(approve ? `approving and running ${qids.join(", ")}…` : `running ${qids.length} gate(s)…`);
    runGates({
      root: src.root,
      scope: data?.snapshot.target.scope ?? null,
      qids,
      reverify,
      approve,
      env: src.env,
      events: {
        started: (qid) => setRunning((r) => [...r, { qid, startedAt: Date.now() }]),
        finished: (qid) => setRunning((r) => r.filter((x) => x.qid !== qid)),
      },
    }).then(
      (result) => setMessage(runSummary(result)),
      (e) => setMessage(`could not run: ${(e as Error).message}`),
    ).finally(() => {
      setRunning([]);
      setBusy(false);
      snap.reload();
    });
  };

  const onKey = (input: string, key: Key) => {
    if (input === "q" || (key.ctrl && input === "c")) {
      exit();
      return;
    }
    if (help) {
      if (input === "?" || key.escape) setHelp(false);
      return;
    }
    if (input === "?") return setHelp(true);
    if (view.kind === "empty" && key.return && props.openDemo) {
      setMessage("preparing the demo…");
      props.openDemo().then(
        (d) => {
          setBanner("demo");
          setSrc((s) => ({ ...s, root: d.root, scope: d.scope, env: d.env ?? s.env }));
          setPanel("graph");
          setMessage(null);
        },
        (e) => setMessage(`demo failed: ${(e as Error).message}`),
      );
      return;
    }
    if (view.kind === "pick" && key.return) {
      const scope = view.scopes[selected];
      if (scope) setSrc((s) => ({ ...s, scope }));
      return;
    }
    if (key.tab) return cycle(key.shift ? -1 : 1);
    if (input === "l" || key.rightArrow) return cycle(1);
    if (input === "h" || key.leftArrow) return cycle(-1);
    if (/^[1-5]$/.test(input)) return setPanel(PANELS[Number(input) - 1]!);
    if (input === "j" || key.downArrow) return move(1);
    if (input === "k" || key.upArrow) return move(-1);
    if (key.pageDown) return move(bodyHeight - 1);
    if (key.pageUp) return move(-(bodyHeight - 1));
    if (input === "g" || key.home) return move(-count);
    if (input === "G" || key.end) return move(count);
    if (!data) return;
    if (key.return && panel === "graph" && leaves[selected]) {
      const suffix = `gates/leaf-${leaves[selected]!.row.id}.md`;
      return jump("gates", rows.findIndex((r) => r.kind === "gate" && r.view.file.endsWith(suffix)));
    }
    if (key.return && panel === "queue" && queue[selected]?.leaf) {
      const id = queue[selected]!.leaf;
      return jump("graph", leaves.findIndex((l) => l.row.id === id));
    }
    if ((input === "r" || input === "R") && panel === "gates") {
      const item = rows[selected];
      if (item?.kind !== "gate") return;
      const qids = data.snapshot.gates.filter((g) => g.file === item.view.file).map((g) => g.qid);
      return run(qids, input === "R", false);
    }
    if (key.return && panel === "approvals") return setExpanded((x) => !x);
    if (panel === "approvals" && pending[selected]) {
      const task = pending[selected]!;
      if (input === "a") {
        setDeclined((d) => new Set([...d].filter((k) => k !== declineKey(task))));
        return run([task.qid], false, true);
      }
      if (input === "d") {
        setDeclined((d) => new Set([...d, declineKey(task)]));
        setMessage(`declined ${task.qid}: it does not run and stays unmet`);
        return move(1);
      }
    }
  };
  // Ink delivers plain characters that arrive together as one input ("jjj", "\t\t").
  const onInput = (input: string, key: Key) => {
    if (input.length > 1 && !input.includes("\u001b")) {
      for (const ch of input) onKey(ch, { ...key, tab: ch === "\t", return: ch === "\r" });
      return;
    }
    onKey(input, key);
  };
  useInput(onInput, { isActive: isRawModeSupported });

  return (
    <Box flexDirection="column" width={width} height={frameRows}>
      <Header view={view} width={width} theme={theme} banner={banner} />
      <Tabs panel={panel} width={width} theme={theme} counts={data ? counts : null} />
      <Box height={bodyHeight} flexDirection="column">
        {help ? (
          <Help width={width} height={bodyHeight} theme={theme} />
        ) : (
          <Body
            view={view}
            panel={panel}
            selected={selected}
            width={width}
            height={bodyHeight}
            theme={theme}
            rows={rows}
            leaves={leaves}
            queue={queue}
            declined={declined}
            expanded={expanded}
            slots={src.slots}
            running={running}
            now={now}
            canDemo={!!props.openDemo}
          />
        )}
      </Box>
      <Text color={theme.tone(message ? "info" : "muted")} wrap="truncate">
        {fit(message ?? FOOTER[panel], width)}
      </Text>
    </Box>
  );
}

const FOOTER: Record<PanelId, string> = {
  graph: "enter: the leaf's gates · tab panels · ↑↓ move · ? help · q quit",
  queue: "enter: show on the graph · tab panels · ↑↓ move · ? help · q quit",
  gates: "r run this ledger · R re-verify · tab panels · ↑↓ move · ? help · q quit",
  approvals: "a approve and run · d decline · enter full detail · tab panels · ? help · q quit",
  log: "tab panels · ↑↓ scroll · G newest · ? help · q quit",
};

function Header({ view, width, theme, banner }: { view: DashView; width: number; theme: Theme; banner: string }) {
  let where = view.root;
  let verdict = "";
  let tone: "ok" | "bad" | "accent" | "muted" = "muted";
  if (view.kind === "ready") {
    const t = view.data.snapshot.target;
    where = t.scope ? `scope ${t.scope}` : t.mode === "legacy" ? "GATES.md + gates/" : "explicit ledgers";
    const r = view.data.report;
    if (view.data.snapshot.problems.length > 0) {
      verdict = `INVALID (${view.data.snapshot.problems.length} problems)`;
      tone = "bad";
    } else {
      verdict = verdictLines(view.data.reduction, "", null, false)[0] ?? "";
      tone = r.verdict === "all-met" ? "ok" : r.verdict === "handoff" ? "accent" : "bad";
    }
  }
  const left = fit(`kbz${banner ? ` ${banner}` : ""} · ${where}`, Math.max(10, width - verdict.length - 2));
  const gap = Math.max(2, width - left.length - verdict.length);
  return (
    <Text wrap="truncate">
      <Text bold>{left}</Text>
      <Text>{" ".repeat(gap)}</Text>
      <Text color={theme.tone(tone)}>{fit(verdict, Math.max(0, width - left.length - gap))}</Text>
    </Text>
  );
}

function Tabs({ panel, width, theme, counts }: { panel: PanelId; width: number; theme: Theme; counts: Record<PanelId, number> | null }) {
  // Narrow terminals drop the numbers first, then shorten the titles, so the row never wraps.
  const n = (p: PanelId) => (counts && (p === "approvals" || p === "queue") && counts[p] > 0 ? ` ${counts[p]}` : "");
  const full = PANELS.map((p, i) => ` ${i + 1} ${TITLES[p]}${n(p)} `);
  const bare = PANELS.map((p) => ` ${TITLES[p]}${n(p)} `);
  const short = PANELS.map((p) => ` ${TITLES[p].slice(0, 3)} `);
  const labels = [full, bare, short].find((l) => l.join("").length <= width) ?? short;
  return (
    <Text wrap="truncate">
      {PANELS.map((p, i) => (
        <Text key={p} inverse={p === panel} bold={p === panel} color={p === panel ? undefined : theme.tone(p === "approvals" && n(p) ? "warn" : "muted")}>
          {p === panel ? `[${labels[i]!.slice(1, -1)}]` : labels[i]}
        </Text>
      ))}
    </Text>
  );
}

interface BodyProps {
  view: DashView;
  panel: PanelId;
  selected: number;
  width: number;
  height: number;
  theme: Theme;
  rows: GateRowItem[];
  leaves: LeafItem[];
  queue: QueueItem[];
  declined: ReadonlySet<string>;
  expanded: boolean;
  slots: number;
  running: RunningCheck[];
  now: number;
  canDemo: boolean;
}

function Body(p: BodyProps) {
  const { view, theme, width, height } = p;
  if (view.kind === "empty") {
    return (
      <Box flexDirection="column" height={height}>
        <Text>{fit(`No gate ledgers here (GATES.md, gates/*.md or .unlazy/<scope>/) in ${view.root}.`, width)}</Text>
        <Text> </Text>
        {p.canDemo ? (
          <Text color={theme.tone("info")}>{fit("Press enter to open the built-in demo: a small plan whose leaves advance while you watch.", width)}</Text>
        ) : null}
      </Box>
    );
  }
  if (view.kind === "error") {
    return (
      <Box height={height}>
        <Text color={theme.tone("bad")}>{fit(`kbz: ${view.message}`, width)}</Text>
      </Box>
    );
  }
  if (view.kind === "pick") {
    return (
      <Box flexDirection="column" height={height}>
        <Text>{fit(`${view.scopes.length} scopes here; choose one (enter):`, width)}</Text>
        <List
          items={view.scopes}
          selected={p.selected}
          height={height - 1}
          theme={theme}
          row={(s, _i, active) => <Text inverse={active}>{fit(`${active ? "›" : " "} ${s}`, width)}</Text>}
        />
      </Box>
    );
  }
  const data: DashData = view.data;
  switch (p.panel) {
    case "graph":
      return <Graph data={data} rows={p.leaves} selected={p.selected} width={width} height={height} theme={theme} />;
    case "queue":
      return <Queue view={data.plan} items={p.queue} selected={p.selected} width={width} height={height} theme={theme} slots={p.slots} />;
    case "gates":
      return <Gates data={data} rows={p.rows} selected={p.selected} width={width} height={height} theme={theme} running={p.running} now={p.now} />;
    case "approvals":
      return <Approvals view={data.approvals} declined={p.declined} selected={p.selected} width={width} height={height} theme={theme} expanded={p.expanded} />;
    case "log":
      return <Log log={data.log} selected={p.selected} width={width} height={height} theme={theme} />;
  }
}
