// The dashboard shell: header, panel tabs, the active panel (or a full view), a footer. The
// screen state is data (state.ts's reducer); keys come from one table (keys.ts) that also
// prints the footer and the help; theme and sizes reach the panels through context.
import { Box, Text, useApp, useInput, useStdin, type Key } from "ink";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { readLastRun } from "../io/check/lastrun.ts";
import { isRunnable } from "../core/ledger/model.ts";
import { verdictLines } from "../core/ledger/state.ts";
import type { Env } from "../io/run/shell.ts";
import { listScopes } from "../io/discover.ts";
import { DEFAULT_TIMEOUT_S } from "../io/check/run.ts";
import { gateApproval, runGates, runSummary } from "./approvals.ts";
import { UiProvider, useUi } from "./context.tsx";
import { FullView, fullViewStops, type DetailLine } from "./Detail.tsx";
import { gateFullLines, type ProbeShown } from "./gateDetail.ts";
import { Help, helpLabelMax, helpLines } from "./Help.tsx";
import { footerHints, keyName, lookup, PANELS, TITLES, type Command, type PanelId } from "./keys.ts";
import { List } from "./List.tsx";
import type { DashData, DashSource, DashView } from "./load.ts";
import { dependentsOf, leafLedgerSuffix, leafStates, listed, type Listed } from "./model.ts";
import { Approvals, approvalDetail, approvalSpec, declineKey } from "./panels/Approvals.tsx";
import { GATE_SPEC, Gates, gateRows, waveLines, type GateRowItem } from "./panels/Gates.tsx";
import { Graph, LEAF_SPEC, graphRows, leafDetail } from "./panels/Graph.tsx";
import { LOG_SPEC, Log, logLines, splitTime } from "./panels/Log.tsx";
import { QUEUE_SPEC, Queue, queueItems } from "./panels/Queue.tsx";
import { problemsText, scopeSummary, type ScopeSummary } from "./scopes.ts";
import { initialState, modeOf, reduce, selectedIndex, type Action, type DashState, type ListKey } from "./state.ts";
import { cols, fit, pad } from "./text.ts";
import { makeTheme, type Theme } from "./theme.ts";
import { useSnapshot } from "./useSnapshot.ts";
import { useIdleCollect } from "./useIdleCollect.ts";
import { useTerminalSize } from "./useTerminalSize.ts";

export { PANELS, type PanelId } from "./keys.ts";

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
  openDemo?: () => Promise<{ root: string; scope: string; env?: Env; slots?: number }>;
  /** Shown in the header (the demo says what it is). */
  banner?: string;
}

/** Rows the chrome takes: header, tabs, footer. The frame is one row shorter than the terminal. */
const CHROME_ROWS = 3;
export const DEFAULT_SLOTS = 4;
/** A message stays this long unless a key clears it first. */
export const FLASH_MS = 4000;

const PICK_SPEC = { id: (s: ScopeSummary) => s.scope, text: (s: ScopeSummary) => `${s.scope} ${s.verdict}`, done: (s: ScopeSummary) => s.tone === "ok" };

function useLists(data: DashData | null, state: DashState) {
  // Each part is derived from the one input it reads: a reload that re-read only the plan side
  // keeps the 5,000 gate rows of a big scope (and the snapshot's) instead of building them again,
  // so the screen's previous frame and this one share them.
  const snapshot = data?.snapshot ?? null;
  const plan = data?.plan ?? null;
  const logTail = data?.log ?? null;
  const gateList = useMemo(() => (snapshot ? gateRows(snapshot) : []), [snapshot]);
  const logList = useMemo(() => (logTail ? logLines(logTail) : []), [logTail]);
  const model = useMemo(() => {
    const states = leafStates(plan);
    return {
      states,
      dependents: dependentsOf(plan),
      gates: gateList,
      leaves: graphRows(plan, states),
      queue: queueItems(plan, states),
      log: logList,
    };
  }, [plan, gateList, logList]);
  const { filter, unmetOnly, declined } = state;
  const graph = useMemo(() => listed(model.leaves, LEAF_SPEC, filter.graph, unmetOnly), [model, filter.graph, unmetOnly]);
  const queue = useMemo(() => listed(model.queue, QUEUE_SPEC, filter.queue, unmetOnly), [model, filter.queue, unmetOnly]);
  const gates = useMemo(() => listed(model.gates, GATE_SPEC, filter.gates, unmetOnly), [model, filter.gates, unmetOnly]);
  const approvals = useMemo(() => listed(data?.approvals.items ?? [], approvalSpec(declined), filter.approvals, unmetOnly), [data, declined, filter.approvals, unmetOnly]);
  const log = useMemo(() => listed(model.log, LOG_SPEC, filter.log, unmetOnly), [model, filter.log, unmetOnly]);
  return { model, lists: { graph, queue, gates, approvals, log } as { [P in PanelId]: Listed<unknown> } & { graph: typeof graph; queue: typeof queue; gates: typeof gates; approvals: typeof approvals; log: typeof log } };
}

export function App(props: AppProps) {
  const theme = useMemo(() => props.theme ?? makeTheme(), [props.theme]);
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
  // The last probe (p) of each gate in this session, by qid: the gate detail shows it.
  const [probes, setProbes] = useState<Record<string, ProbeShown>>({});
  const snap = useSnapshot(src, { watch: props.watch ?? true });
  const view = snap.view;
  useIdleCollect();

  // The reducer's state, also kept in a ref: several keys can arrive in one chunk ("/ab",
  // key repeat), and each must see the state the previous one left.
  const [state, setState] = useState(() => initialState(props.initialPanel ?? "gates"));
  const live = useRef(state);
  const dispatch = useCallback((a: Action) => {
    live.current = reduce(live.current, a);
    setState(live.current);
  }, []);

  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (state.running.length === 0) return;
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, [state.running.length]);
  const flashSeq = state.flash?.seq;
  useEffect(() => {
    if (flashSeq === undefined) return;
    const t = setTimeout(() => dispatch({ type: "flash-expire", seq: flashSeq }), FLASH_MS);
    return () => clearTimeout(t);
  }, [flashSeq, dispatch]);

  const width = Math.max(20, size.columns);
  const frameRows = Math.max(CHROME_ROWS + 1, size.rows - 1);
  const bodyHeight = frameRows - CHROME_ROWS;
  const data = view.kind === "ready" ? view.data : null;
  const { model, lists } = useLists(data, state);

  // The scope picker: the scopes with their verdicts (read when it opens, and on reloads).
  const picking = view.kind === "pick" || state.overlay === "pick";
  const scopeNames = view.kind === "pick" ? view.scopes : picking ? listScopes(src.root) : [];
  const scopeKey = scopeNames.join("\0");
  const reloadKey = data?.hash ?? view.kind;
  const summaries = useMemo(() => scopeNames.map((s) => scopeSummary(src.root, s)), [scopeKey, src.root, reloadKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const pickList = useMemo(() => listed(summaries, PICK_SPEC, state.filter.pick, false), [summaries, state.filter.pick]);

  const mode = modeOf(state, view.kind === "ready" ? "ready" : view.kind);
  const selectedOf = (key: PanelId) => selectedIndex(state, key, lists[key].ids);
  const current = <P extends PanelId>(p: P) => lists[p].items[selectedOf(p)] as (typeof lists)[P]["items"][number] | undefined;

  /** The full view's title and lines for the selected item of the panel (enter). */
  const full = useMemo((): { title: string; lines: DetailLine[] } | null => {
    if (state.overlay === "message") return { title: "Last message", lines: [{ label: "", value: state.lastMessage ?? "(none)", wrap: true }] };
    if (state.overlay !== "detail" || !data) return null;
    const problem = panelProblem(state.panel, data);
    if (problem) return { title: `${TITLES[state.panel]}: why it cannot show`, lines: [{ label: "", value: problem, tone: "bad", wrap: true }] };
    switch (state.panel) {
      case "gates": {
        const item = current("gates");
        if (!item) return null;
        if (item.kind === "problem") {
          const p = item.problem;
          return { title: "Problem", lines: [{ label: "problem", value: `${p.file}:${p.line}: ${p.message}`, tone: "bad", wrap: true }] };
        }
        if (item.kind === "wave") return { title: "Dispatch wave", lines: waveLines(item) };
        const v = item.view;
        const approval = gateApproval(data.snapshot, data.approvals, v);
        const last = isRunnable(v.gate) ? readLastRun(src.env, v.file, v.gate.id) : null;
        return { title: `Gate ${v.qid}`, lines: gateFullLines(v, item.display, approval, last, probes[v.qid] ?? null) };
      }
      case "graph": {
        const item = current("graph");
        return item && data.plan ? { title: `Leaf ${item.row.id}`, lines: leafDetail(data, data.plan, item, model.states, model.dependents) } : null;
      }
      case "queue": {
        const item = current("queue");
        return item ? { title: `Queue: ${item.kind} ${item.leaf ?? ""}`, lines: item.detail } : null;
      }
      case "approvals": {
        const t = current("approvals");
        return t ? { title: `Approve ${t.qid}?`, lines: approvalDetail(data.approvals, t, state.declined.includes(declineKey(t))) } : null;
      }
      case "log": {
        const line = current("log");
        if (!line) return null;
        const parts = splitTime(line.text);
        return { title: "Log line", lines: parts ? [{ label: "time", value: parts[0] }, { label: "event", value: parts[1], wrap: true }] : [{ label: "", value: line.text, wrap: true }] };
      }
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.overlay, state.panel, state.sel, state.declined, state.lastMessage, data, lists, state.running.length, probes]);

  /** The list the movement keys act on now, with its ids. */
  const active = (): { key: ListKey; ids: readonly string[] } => {
    const m = modeOf(live.current, view.kind === "ready" ? "ready" : view.kind);
    if (m === "help") return { key: "help", ids: stops(fullViewStops(helpLines(), width, bodyHeight, helpLabelMax(width))) };
    if (m === "pick") return { key: "pick", ids: pickList.ids };
    if (m === "detail") return { key: "detail", ids: stops(full ? fullViewStops(full.lines, width, bodyHeight) : 1) };
    return { key: live.current.panel, ids: lists[live.current.panel].ids };
  };

  const flash = (text: string, tone: "info" | "bad" | "warn" | "ok" = "info") => dispatch({ type: "flash", text, tone });

  /** Run (or approve and run) gates in process; the files change, the watcher and reload show it. */
  const run = (qids: string[], reverify: boolean, approve: boolean) => {
    if (qids.length === 0 || !data) return;
    if (live.current.busy) return flash("a check is still running: wait for it to finish", "warn");
    dispatch({ type: "busy", busy: true });
    flash(approve ? `approving and running ${qids.join(", ")}…` : `running ${qids.length === 1 ? qids[0] : `${qids.length} gates`}…`);
    runGates({
      root: src.root,
      scope: data.snapshot.target.scope ?? null,
      qids,
      reverify,
      approve,
      env: src.env,
      events: {
        started: (qid) => dispatch({ type: "run-started", qid, at: Date.now() }),
        finished: (qid) => dispatch({ type: "run-finished", qid }),
      },
    }).then(
      (result) => flash(runSummary(result), result.runs.every((r) => r.outcome.ok) ? "ok" : "bad"),
      (e) => flash(`could not run: ${(e as Error).message}`, "bad"),
    ).finally(() => {
      dispatch({ type: "busy", busy: false });
      snap.reload();
    });
  };

  /** Probe one met gate with the same function as `kbz check --probe` (never approves: as r). */
  const probe = (qid: string) => {
    if (!data) return;
    if (live.current.busy) return flash("a check is still running: wait for it to finish", "warn");
    dispatch({ type: "busy", busy: true });
    flash(`probing ${qid} with its deliverable hidden…`);
    const done = (shown: ProbeShown) => {
      setProbes((m) => ({ ...m, [qid]: shown }));
      flash(shown.line, shown.tone);
    };
    void import("../io/check/probe.ts")
      .then(({ runProbes, probeLine }) =>
        runProbes({ root: src.root, files: [], scope: data.snapshot.target.scope ?? null, approve: false, timeoutS: DEFAULT_TIMEOUT_S, env: src.env, only: [qid] }).then((res) => {
          const item = res.items.find((i) => i.qid === qid);
          if (!item) return flash(`${qid} was not probed: only a met runnable gate can be probed (r runs it first)`, "warn");
          const root = res.snapshot.target.root;
          if (item.verdict === "approval-required") {
            const line = `${qid} not probed (approval required: the probe hides ${item.hidden.length} path(s); approve it with kbz check --probe --approve)`;
            return done({ line, tone: "warn" });
          }
          const tone = item.verdict === "vacuous" ? "bad" : item.verdict === "observes" ? "ok" : "warn";
          done({ line: probeLine(item, root).trim(), tone });
        }),
      )
      .catch((e) => flash(`could not probe: ${(e as Error).message}`, "bad"))
      .finally(() => {
        dispatch({ type: "busy", busy: false });
        snap.reload();
      });
  };

  const selectedGate = (): GateRowItem | undefined => current("gates");

  const perform = (command: Command, name: string): void => {
    const s = live.current;
    const page = Math.max(1, bodyHeight - 1);
    switch (command) {
      case "quit":
        return exit();
      case "help":
        return dispatch({ type: "overlay", overlay: s.overlay === "help" ? null : "help" });
      case "back":
        return dispatch({ type: "overlay", overlay: null });
      case "next-panel":
        return dispatch({ type: "cycle", delta: 1 });
      case "prev-panel":
        return dispatch({ type: "cycle", delta: -1 });
      case "panel":
        return dispatch({ type: "panel", panel: PANELS[Number(name) - 1]! });
      case "down":
      case "up":
      case "page-down":
      case "page-up":
      case "first":
      case "last": {
        const delta = { down: 1, up: -1, "page-down": page, "page-up": -page, first: -Infinity, last: Infinity }[command];
        const { key, ids } = active();
        return dispatch({ type: "move", list: key, delta, ids });
      }
      case "open":
        if (lists[s.panel].items.length > 0 || (data && panelProblem(s.panel, data))) dispatch({ type: "overlay", overlay: "detail" });
        return;
      case "message":
        return s.lastMessage ? dispatch({ type: "overlay", overlay: "message" }) : flash("no message yet");
      case "filter":
        return dispatch({ type: "filter-start", list: modeOf(s, view.kind === "ready" ? "ready" : view.kind) === "pick" ? "pick" : s.panel });
      case "unmet":
        dispatch({ type: "unmet" });
        return flash(s.unmetOnly ? "showing everything" : "showing only what is not done (u shows everything)");
      case "scopes":
        return dispatch({ type: "overlay", overlay: "pick" });
      case "pick": {
        const chosen = pickList.items[selectedIndex(s, "pick", pickList.ids)];
        if (!chosen) return;
        dispatch({ type: "scope-chosen" });
        setSrc((x) => ({ ...x, scope: chosen.scope }));
        return;
      }
      case "demo": {
        if (!props.openDemo) return;
        flash("preparing the demo…");
        props.openDemo().then(
          (d) => {
            setBanner("demo");
            setSrc((x) => ({ ...x, root: d.root, scope: d.scope, env: d.env ?? x.env, slots: d.slots ?? x.slots }));
            dispatch({ type: "panel", panel: "graph" });
            dispatch({ type: "key" });
          },
          (e) => flash(`demo failed: ${(e as Error).message}`, "bad"),
        );
        return;
      }
      case "leaf-gates": {
        const leaf = current("graph");
        if (!leaf) return;
        const suffix = leafLedgerSuffix(leaf.row.id);
        const gate = model.gates.find((r) => r.kind === "gate" && r.view.file.endsWith(suffix));
        if (!gate || gate.kind !== "gate") return flash(`leaf ${leaf.row.id} has no ledger ${suffix}`, "warn");
        dispatch({ type: "panel", panel: "gates" });
        return dispatch({ type: "select", list: "gates", id: gate.view.qid });
      }
      case "show-graph": {
        const item = current("queue");
        if (!item?.leaf) return;
        dispatch({ type: "panel", panel: "graph" });
        return dispatch({ type: "select", list: "graph", id: item.leaf });
      }
      case "run":
      case "reverify":
      case "run-ledger": {
        const item = selectedGate();
        if (item?.kind !== "gate" || !data) return;
        if (command !== "run-ledger" && !isRunnable(item.view.gate)) return flash(`${item.view.qid} is a manual gate: s signs it with evidence`, "warn");
        const qids = command === "run-ledger" ? data.snapshot.gates.filter((g) => g.file === item.view.file).map((g) => g.qid) : [item.view.qid];
        return run(qids, command === "reverify", false);
      }
      case "probe": {
        const item = selectedGate();
        if (item?.kind !== "gate") return;
        if (!isRunnable(item.view.gate)) return flash(`${item.view.qid} is a manual gate: there is no CHECK to probe`, "warn");
        if (item.view.state !== "met") return flash(`${item.view.qid} is not met: only a passed gate is probed (r runs it first)`, "warn");
        return probe(item.view.qid);
      }
      case "sign": {
        const item = selectedGate();
        if (item?.kind !== "gate") return;
        if (isRunnable(item.view.gate)) return flash(`${item.view.qid} has a CHECK: r runs it (a runnable gate is met by its check, not by a signature)`, "warn");
        return dispatch({ type: "evidence-start", qid: item.view.qid });
      }
      case "approve": {
        const t = current("approvals");
        if (!t) return;
        dispatch({ type: "undecline", key: declineKey(t) });
        return run([t.qid], false, true);
      }
      case "decline": {
        const t = current("approvals");
        if (!t) return;
        dispatch({ type: "decline", key: declineKey(t) });
        flash(`declined ${t.qid}: it does not run and stays unmet`, "warn");
        return dispatch({ type: "move", list: "approvals", delta: 1, ids: lists.approvals.ids });
      }
      case "submit":
        if (s.editing?.kind === "filter") return dispatch({ type: "filter-end", keep: true });
        if (s.editing?.kind === "evidence") {
          const { qid, text } = s.editing;
          dispatch({ type: "evidence-end" });
          return sign(qid, text);
        }
        return;
      case "cancel":
        if (s.editing?.kind === "filter") return dispatch({ type: "filter-end", keep: false });
        return dispatch({ type: "evidence-end" });
      case "erase":
        return dispatch({ type: s.editing?.kind === "filter" ? "filter-erase" : "evidence-erase" });
    }
  };

  const sign = (qid: string, evidence: string) => {
    if (!data) return;
    if (evidence.trim() === "") return flash("not signed: the evidence text is empty", "warn");
    // The same core function as `kbz sign` (loaded when first used).
    void import("../io/check/sign.ts").then(({ signGate }) =>
      signGate({ root: src.root, scope: data.snapshot.target.scope, qid, evidence, env: src.env, via: "dashboard" }).then(
        (r) => flash(r.status === "written" ? `signed ${qid}` : `${qid} already carries this evidence`, "ok"),
        (e) => flash(`not signed: ${(e as Error).message}`, "bad"),
      ).finally(() => snap.reload()),
    );
  };

  const onKey = (input: string, key: Key) => {
    const name = keyName(input, key);
    const s = live.current;
    const m = modeOf(s, view.kind === "ready" ? "ready" : view.kind);
    dispatch({ type: "key" });
    const def = lookup(name, m, s.panel);
    if (def) return perform(def.command, name);
    if ((m === "filter" || m === "prompt") && input && !key.ctrl && !key.meta && !/[\u0000-\u001f\u007f]/.test(input)) {
      dispatch(m === "filter" ? { type: "filter-type", text: input } : { type: "evidence-type", text: input });
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
  // One subscription for the App's life: Ink re-subscribes whenever the handler changes, and a
  // key arriving between a commit and the re-subscription would be lost; the ref always holds
  // this render's handler.
  const handler = useRef(onInput);
  handler.current = onInput;
  const stableInput = useCallback((input: string, key: Key) => handler.current(input, key), []);
  useInput(stableInput, { isActive: isRawModeSupported });

  const body = () => {
    if (mode === "help") return <Help top={selectedIndex(state, "help", stops(fullViewStops(helpLines(), width, bodyHeight, helpLabelMax(width))))} height={bodyHeight} width={width} />;
    if (picking) return <Picker list={pickList} selected={selectedIndex(state, "pick", pickList.ids)} height={bodyHeight} current={data?.snapshot.target.scope ?? null} />;
    if (full) return <FullView title={full.title} lines={full.lines} top={state.sel.detail?.index ?? 0} height={bodyHeight} />;
    return <Body view={view} state={state} lists={lists} model={model} slots={src.slots} now={now} canDemo={!!props.openDemo} height={bodyHeight} selectedOf={selectedOf} />;
  };

  return (
    <UiProvider theme={theme} width={width} height={bodyHeight}>
      <Box flexDirection="column" width={width} height={frameRows}>
        <Header view={view} width={width} theme={theme} banner={banner} />
        <Tabs panel={state.panel} width={width} theme={theme} counts={data ? lists : null} />
        <Box height={bodyHeight} flexDirection="column">
          {body()}
        </Box>
        <Footer state={state} mode={mode} width={width} theme={theme} />
      </Box>
    </UiProvider>
  );
}

/** A panel that shows a problem instead of its list: the problem, for enter to show in full. */
function panelProblem(panel: PanelId, data: DashData): string | null {
  switch (panel) {
    case "graph":
      return data.plan && !data.plan.plan ? data.plan.problem : null;
    case "queue":
      return data.plan && !data.plan.advice ? data.plan.problem : null;
    case "approvals":
      return data.approvals.problem;
    case "log":
      return data.log.lines.length === 0 ? data.log.problem : null;
    case "gates":
      return null;
  }
}

const stops = (n: number): string[] => Array.from({ length: Math.max(1, n) }, (_, i) => String(i));

function Footer({ state, mode, width, theme }: { state: DashState; mode: ReturnType<typeof modeOf>; width: number; theme: Theme }) {
  const e = state.editing;
  if (e?.kind === "filter") {
    const hints = footerHints("filter", state.panel).join(" · ");
    return <Text wrap="truncate">{fit(`/${state.filter[e.list] ?? ""}▏  ${hints}`, width)}</Text>;
  }
  if (e?.kind === "evidence") {
    const hints = footerHints("prompt", state.panel).join(" · ");
    // The end of a long text stays visible while typing.
    const room = Math.max(8, width - cols(e.qid) - cols(hints) - 16);
    const text = cols(e.text) > room ? `…${[...e.text].slice(-(room - 1)).join("")}` : e.text;
    return <Text wrap="truncate">{fit(`evidence for ${e.qid}: ${text}▏  ${hints}`, width)}</Text>;
  }
  if (state.flash) {
    const more = cols(state.flash.text) > width ? " (m: all)" : "";
    return (
      <Text color={theme.tone(state.flash.tone)} wrap="truncate">
        {fit(state.flash.text, width - cols(more)) + more}
      </Text>
    );
  }
  const list: ListKey = mode === "pick" ? "pick" : state.panel;
  const marks = [state.filter[list] ? `/${state.filter[list]}` : "", mode === "list" && state.unmetOnly ? "[unmet only]" : ""].filter(Boolean).join(" ");
  const hints = footerHints(mode, state.panel).join(" · ");
  return (
    <Text color={theme.tone("muted")} wrap="truncate">
      {fit(`${marks ? `${marks}  ` : ""}${hints}`, width)}
    </Text>
  );
}

function Header({ view, width, theme, banner }: { view: DashView; width: number; theme: Theme; banner: string }) {
  let where = view.root;
  let verdict = "";
  let tone: "ok" | "bad" | "accent" | "muted" = "muted";
  if (view.kind === "ready") {
    const t = view.data.snapshot.target;
    where = t.scope ? `scope ${t.scope}` : t.mode === "legacy" ? "GATES.md + gates/" : "explicit ledgers";
    const r = view.data.report;
    if (view.data.snapshot.problems.length > 0) {
      verdict = problemsText(view.data.snapshot.problems.length);
      tone = "bad";
    } else {
      verdict = verdictLines(view.data.reduction, "", null, false)[0] ?? "";
      tone = r.verdict === "all-met" ? "ok" : r.verdict === "handoff" ? "accent" : "bad";
    }
  }
  const verdictShown = fit(verdict, Math.max(0, width - 12));
  const left = fit(`kbz${banner ? ` ${banner}` : ""} · ${where}`, Math.max(8, width - cols(verdictShown) - 2));
  const gap = Math.max(1, width - cols(left) - cols(verdictShown));
  return (
    <Text wrap="truncate">
      <Text bold>{left}</Text>
      <Text>{" ".repeat(gap)}</Text>
      <Text color={theme.tone(tone)}>{fit(verdictShown, Math.max(0, width - cols(left) - gap))}</Text>
    </Text>
  );
}

function Tabs({ panel, width, theme, counts }: { panel: PanelId; width: number; theme: Theme; counts: Record<PanelId, Listed<unknown>> | null }) {
  // Narrow terminals drop the numbers first, then shorten the titles, so the row never wraps.
  const n = (p: PanelId) => (counts && (p === "approvals" || p === "queue") && counts[p].items.length > 0 ? ` ${counts[p].items.length}` : "");
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

function Picker({ list, selected, height, current }: { list: Listed<ScopeSummary>; selected: number; height: number; current: string | null }) {
  const width = Math.max(1, useUi().width);
  const nameW = Math.min(24, Math.max(6, ...list.items.map((s) => cols(s.scope) + 1)));
  return (
    <Box flexDirection="column" height={height}>
      <Text wrap="truncate">{fit(`${list.total} scopes here; choose one (enter)${current ? `, esc keeps ${current}` : ""}:`, width)}</Text>
      <List
        items={list.items}
        selected={selected}
        height={height - 1}
        hidden={list.total - list.items.length}
        row={(s, _i, active) => <PickRow s={s} active={active} nameW={nameW} width={width} current={s.scope === current} />}
      />
    </Box>
  );
}

function PickRow({ s, active, nameW, width, current }: { s: ScopeSummary; active: boolean; nameW: number; width: number; current: boolean }) {
  const { theme } = useUi();
  return (
    <Text inverse={active} wrap="truncate">
      <Text>{active ? "›" : current ? "•" : " "} </Text>
      <Text bold>{pad(s.scope, nameW)}</Text>
      <Text color={theme.tone(s.tone)}>{fit(`${s.verdict}  ${s.met}/${s.gates} gates met`, Math.max(0, width - nameW - 2))}</Text>
    </Text>
  );
}

interface BodyProps {
  view: DashView;
  state: DashState;
  lists: ReturnType<typeof useLists>["lists"];
  model: ReturnType<typeof useLists>["model"];
  slots: number;
  now: number;
  canDemo: boolean;
  height: number;
  selectedOf: (p: PanelId) => number;
}

function Body(p: BodyProps) {
  const { view, height, state, lists } = p;
  const { theme, width } = useUi();
  if (view.kind === "empty") {
    return (
      <Box flexDirection="column" height={height}>
        {[`No gate ledgers here (GATES.md, gates/*.md or .unlazy/<scope>/) in ${view.root}.`, ""].map((l, i) => (
          <Text key={i} wrap="truncate">
            {fit(l, width)}
          </Text>
        ))}
        {p.canDemo ? (
          <Text color={theme.tone("info")} wrap="truncate">
            {fit("Press enter to open the built-in demo: a small plan whose leaves advance while you watch.", width)}
          </Text>
        ) : null}
      </Box>
    );
  }
  if (view.kind === "error") return <FullView title="kbz cannot show this folder" lines={[{ label: "", value: view.message, tone: "bad", wrap: true }]} top={0} height={height} />;
  if (view.kind === "pick") return null;
  const data: DashData = view.data;
  switch (state.panel) {
    case "graph":
      return <Graph data={data} list={lists.graph} selected={p.selectedOf("graph")} states={p.model.states} dependents={p.model.dependents} />;
    case "queue":
      return <Queue view={data.plan} list={lists.queue} selected={p.selectedOf("queue")} slots={p.slots} />;
    case "gates":
      return <Gates data={data} list={lists.gates} selected={p.selectedOf("gates")} running={state.running} now={p.now} />;
    case "approvals":
      return <Approvals view={data.approvals} list={lists.approvals} declined={state.declined} selected={p.selectedOf("approvals")} />;
    case "log":
      return <Log log={data.log} list={lists.log} selected={p.selectedOf("log")} />;
  }
}
