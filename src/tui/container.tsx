// The dashboard's container: the state (one reducer, fed by the one watcher → one read path)
// and the actions, provided to the screen through two contexts (the shape of gemini-cli's
// UIStateContext / UIActionsContext), and the effects as hooks: the feed, the spinner's tick,
// messages that expire, the idle collection, the keyboard and the mouse.
import { useApp, useStdin } from "ink";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { DashboardReader, type DashData, type DashSource } from "../ops/dashboard.ts";
import type { ProbeShown } from "../ops/dashboardActs.ts";
import { watchDashboard, type Changed, type WorkspaceWatch } from "../ops/dashboardWatch.ts";
import { DEFAULT_SLOTS } from "../ops/next.ts";
import type { Env } from "../ops/dashboard.ts";
import { makeActs, type Acts } from "./acts.ts";
import { useKeyboard, useMouse, type Geometry } from "./input.ts";
import { PANELS, type ItemKind, type PanelId } from "./keys.ts";
import { buildModel, listed, type Listed, type Model } from "./model.ts";
import type { BaseCtx, Lists } from "./panel.ts";
import { PANEL_DEFS } from "./panels/index.ts";
import { initialState, reduce, selectedIndex, type Action, type DashState } from "./state.ts";
import { makeTheme, type Theme } from "./theme.ts";
import { useIdleCollect } from "./useIdleCollect.ts";
import { useTerminalSize } from "./useTerminalSize.ts";

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
  /** Shown in the header (the demo says what it is); "demo" also shows the guiding banners. */
  banner?: string;
}

/** A message stays this long unless a key clears it first. */
export const FLASH_MS = 4000;
/** Rows the chrome takes: header, tabs, footer. The frame is one row shorter than the terminal. */
export const CHROME_ROWS = 3;

export interface UIState {
  state: DashState;
  data: DashData | null;
  model: Model;
  lists: Lists;
  theme: Theme;
  width: number;
  /** Rows of the frame and of the body between the chrome. */
  frameRows: number;
  bodyHeight: number;
  banner: string;
  src: DashSource;
  now: number;
  probes: Readonly<Record<string, ProbeShown>>;
  base: BaseCtx | null;
  canDemo: boolean;
  selectedOf(panel: PanelId): number;
  /** The selected item's kind in the current panel (what the keys fit). */
  kind: ItemKind | null;
}

export interface UIActions {
  dispatch(a: Action): void;
  acts: Acts;
  /** Where the list is on the screen (mouse clicks). */
  geometry: Geometry;
}

const UIStateContext = createContext<UIState | null>(null);
const UIActionsContext = createContext<UIActions | null>(null);

export function useUIState(): UIState {
  const s = useContext(UIStateContext);
  if (!s) throw new Error("useUIState outside the dashboard container");
  return s;
}

export function useUIActions(): UIActions {
  const a = useContext(UIActionsContext);
  if (!a) throw new Error("useUIActions outside the dashboard container");
  return a;
}

/** The reducer, also kept in a ref: keys arriving in one chunk each see the state the previous one left. */
function useDashReducer(initial: () => DashState): [DashState, (a: Action) => void, { current: DashState }] {
  const [state, setState] = useState(initial);
  const live = useRef(state);
  const dispatch = useCallback((a: Action) => {
    const next = reduce(live.current, a);
    if (next === live.current) return;
    live.current = next;
    setState(next);
  }, []);
  return [state, dispatch, live];
}

/** Panels that show the plan side (PLAN.md, kbz next's advice); the others leave it kept. */
const PLAN_PANELS: readonly PanelId[] = ["graph", "queue"];

/**
 * Once the screen has been still this long after a read that trusted the watcher's names
 * (ops/dashboardCache.ts), one read checks every file: an event the system dropped shows then.
 */
export const VERIFY_MS = 3000;

/**
 * The one watcher → one read → one reducer path: every burst of file events reads once and
 * dispatches `loaded`. The read includes the plan side while a panel that shows it is open; a
 * switch to such a panel reads again. A burst's read re-reads only the files its events named;
 * any other reload (no argument) checks every file.
 */
function useFeed(
  reader: DashboardReader,
  dispatch: (a: Action) => void,
  watch: boolean,
  live: { current: DashState },
  alwaysPlan: boolean,
): (changed?: Changed) => void {
  const watcher = useRef<WorkspaceWatch | null>(null);
  const verify = useRef<ReturnType<typeof setTimeout> | null>(null);
  const reload = useCallback(
    (changed?: Changed) => {
      if (verify.current) clearTimeout(verify.current);
      verify.current = changed ? setTimeout(() => reload(), VERIFY_MS) : null;
      const view = reader.read({ plan: alwaysPlan || PLAN_PANELS.includes(live.current.panel), changed });
      // The oracle files of this read are watched from now on (a checker script edited elsewhere).
      if (view.kind === "ready") watcher.current?.follow(view.data.approvals.oracleFiles);
      dispatch({ type: "loaded", view });
    },
    [reader, dispatch, live, alwaysPlan],
  );
  useEffect(() => {
    if (!watch) return;
    const w = watchDashboard(reader.source.root, () => reader.source.scope, reload);
    watcher.current = w;
    // A write between the first read and the watcher's start raises no event: look once more.
    void w.ready.then(() => reload());
    return () => {
      if (verify.current) clearTimeout(verify.current);
      watcher.current = null;
      void w.close();
    };
  }, [reader, watch, reload]);
  return reload;
}

/** The clock of running checks (spinner and elapsed), ticking only while one runs. */
function useTicker(running: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (running === 0) return;
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, [running]);
  return now;
}

function useFlashExpiry(seq: number | undefined, dispatch: (a: Action) => void): void {
  useEffect(() => {
    if (seq === undefined) return;
    const t = setTimeout(() => dispatch({ type: "flash-expire", seq }), FLASH_MS);
    return () => clearTimeout(t);
  }, [seq, dispatch]);
}

/** Each panel's list, filtered; rebuilt only when its input changed. */
function useLists(model: Model, base: BaseCtx | null, state: DashState): Lists {
  const { filter, unmetOnly, probeRequests } = state;
  const out = {} as Record<PanelId, Listed<unknown>>;
  for (const p of PANELS) {
    const def = PANEL_DEFS[p];
    // eslint-disable-next-line react-hooks/rules-of-hooks -- PANELS is a constant: the same hooks in the same order on every render
    out[p] = useMemo(
      () => (base ? listed(def.items(base), def.spec, filter[p], unmetOnly) : { items: [], ids: [], total: 0 }),
      [model, filter[p], unmetOnly, p === "approvals" ? probeRequests : null, base?.data],
    );
  }
  return out;
}

export function DashboardProvider(props: AppProps & { children: ReactNode }) {
  const theme = useMemo(() => props.theme ?? makeTheme(), [props.theme]);
  const { exit } = useApp();
  const size = useTerminalSize();
  const [reader, setReader] = useState(
    () =>
      new DashboardReader({
        root: props.root,
        scope: props.scope,
        slots: props.slots ?? DEFAULT_SLOTS,
        env: props.env ?? process.env,
      }),
  );
  const [banner, setBanner] = useState(props.banner ?? "");
  const [probes, setProbes] = useState<Record<string, ProbeShown>>({});
  const [state, dispatch, live] = useDashReducer(() => initialState(props.initialPanel ?? "gates", reader.read()));
  // The demo's banner follows the plan (the root's turn comes at verify-root) on every panel; the demo is small.
  const reload = useFeed(reader, dispatch, props.watch ?? true, live, banner === "demo");
  // A panel that shows the plan side reads it when it opens (it was kept while other panels were
  // shown). Approvals reads again when it opens too: an oracle file the CHECK runs (a checker
  // script, a test file) lies outside the folders the watcher follows.
  const planPanel = PLAN_PANELS.includes(state.panel);
  const shownBefore = useRef(planPanel);
  useEffect(() => {
    if (planPanel && !shownBefore.current) reload();
    shownBefore.current = planPanel;
  }, [planPanel, reload]);
  const approvalsOpen = state.panel === "approvals";
  useEffect(() => {
    if (approvalsOpen) reload();
  }, [approvalsOpen, reload]);
  const now = useTicker(state.running.length);
  useFlashExpiry(state.flash?.seq, dispatch);
  useIdleCollect();

  const width = Math.max(20, size.columns);
  const frameRows = Math.max(CHROME_ROWS + 1, size.rows - 1);
  const demoRow = banner === "demo" ? 1 : 0;
  const bodyHeight = frameRows - CHROME_ROWS - demoRow;
  const data = state.view?.kind === "ready" ? state.view.data : null;
  const modelRef = useRef<{ data: DashData | null; model: Model } | null>(null);
  const model = useMemo(() => buildModel(data, modelRef.current), [data]);
  modelRef.current = { data, model };
  const src = reader.source;
  const base = useMemo(
    (): BaseCtx | null => (data ? { data, model, state, theme, now, env: src.env, slots: src.slots, probes } : null),
    [data, model, state, theme, now, src, probes],
  );
  const lists = useLists(model, base, state);
  const selectedOf = useCallback((p: PanelId) => selectedIndex(state, p, lists[p].ids), [state, lists]);
  const sel = lists[state.panel].items[selectedOf(state.panel)];
  const kind = base && sel !== undefined ? PANEL_DEFS[state.panel].kind(sel, base) : null;

  const ui: UIState = {
    state,
    data,
    model,
    lists,
    theme,
    width,
    frameRows,
    bodyHeight,
    banner,
    src,
    now,
    probes,
    base,
    canDemo: !!props.openDemo,
    selectedOf,
    kind,
  };
  const uiRef = useRef(ui);
  uiRef.current = ui;
  const geometry = useRef<Geometry>({ listTop: 0, start: 0 }).current;
  const acts = useMemo(
    () =>
      makeActs({
        ui: () => uiRef.current,
        live,
        dispatch,
        reload,
        exit,
        setProbes,
        openDemo: props.openDemo,
        switchSource: (s) => {
          setReader(new DashboardReader(s));
        },
        setBanner,
      }),
    [dispatch, reload, exit, live, props.openDemo],
  );
  // A new reader (a scope picked, the demo opened) is read at once.
  const first = useRef(reader);
  useEffect(() => {
    if (first.current !== reader) reload();
  }, [reader, reload]);
  const actions = useMemo<UIActions>(() => ({ dispatch, acts, geometry }), [dispatch, acts, geometry]);
  const { isRawModeSupported } = useStdin();
  useKeyboard(acts, isRawModeSupported);
  useMouse(acts, uiRef, geometry, isRawModeSupported);
  return (
    <UIStateContext.Provider value={ui}>
      <UIActionsContext.Provider value={actions}>{props.children}</UIActionsContext.Provider>
    </UIStateContext.Provider>
  );
}
