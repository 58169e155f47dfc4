// The screen: header, tabs, the demo's banner, the body (a panel, a full view, the help or the
// scope picker) and the footer. Everything comes from the container's two contexts.
import { Box, Text } from "ink";
import { verdictLines } from "../core/ledger/state.ts";
import { legacyPlaces } from "../core/workspace/target.ts";
import { problemsText, type ScopeSummary } from "../ops/dashboardScopes.ts";
import { useUIActions, useUIState, type UIState } from "./container.tsx";
import { UiProvider, useUi } from "./context.tsx";
import { FullView } from "./Detail.tsx";
import { HelpList } from "./Help.tsx";
import { fitHints, footerHints, PANELS, tabCounts, tabLabels, type Hint } from "./keys.ts";
import { List } from "./List.tsx";
import type { Listed } from "./model.ts";
import { PanelView } from "./PanelView.tsx";
import { PANEL_DEFS } from "./panels/index.ts";
import { modeOf, selectedIndex } from "./state.ts";
import { cols, fit, pad } from "./text.ts";
import { fullView, helpList, NOT_YET, pickList, unseenRows } from "./views.ts";

export function Screen() {
  const ui = useUIState();
  return (
    <UiProvider theme={ui.theme} width={ui.width} height={ui.bodyHeight}>
      <Box flexDirection="column" width={ui.width} height={ui.frameRows}>
        <Header />
        <Tabs />
        {ui.banner === "demo" ? <DemoBanner /> : null}
        <Box height={ui.bodyHeight} flexDirection="column">
          <Body />
        </Box>
        <Footer />
      </Box>
    </UiProvider>
  );
}

function Body() {
  const ui = useUIState();
  const { geometry } = useUIActions();
  const { theme, width, height } = useUi();
  const { state } = ui;
  const mode = modeOf(state);
  const view = state.view;
  if (mode === "help")
    return (
      <HelpList
        rows={helpList(ui)}
        selected={selectedIndex(
          state,
          "help",
          helpList(ui).map((_, i) => String(i)),
        )}
      />
    );
  if (mode === "pick")
    return (
      <Picker
        list={pickList(ui)}
        selected={selectedIndex(state, "pick", pickList(ui).ids)}
        current={ui.data?.snapshot.target.scope ?? null}
      />
    );
  const full = fullView(ui);
  if (full)
    return <FullView title={full.title} lines={full.lines} top={state.sel.detail?.index ?? 0} height={height} />;
  if (!view || view.kind === "empty") {
    return (
      <Box flexDirection="column" height={height}>
        <Text wrap="truncate">
          {fit(
            `No gate ledgers here (GATES.md, gates/*.md or .unlazy/<scope>/) in ${view?.root ?? ui.src.root}.`,
            width,
          )}
        </Text>
        {ui.canDemo ? (
          <Text color={theme.tone("info")} wrap="truncate">
            {fit("Press enter to open the built-in demo: a small plan whose leaves advance while you watch.", width)}
          </Text>
        ) : null}
      </Box>
    );
  }
  if (view.kind === "error")
    return (
      <FullView
        title="kbz cannot show this folder"
        lines={[{ label: "", value: view.message, tone: "bad", wrap: true }]}
        top={0}
        height={height}
      />
    );
  if (!ui.base) return null;
  const p = state.panel;
  return (
    <PanelView
      def={PANEL_DEFS[p]}
      list={ui.lists[p]}
      selected={ui.selectedOf(p)}
      ctx={ui.base}
      onGeometry={(listTop, start) => {
        geometry.listTop = listTop;
        geometry.start = start;
      }}
    />
  );
}

/** The hints drawn with their keys highlighted. */
function Hints({ hints, width }: { hints: Hint[]; width: number }) {
  const { theme } = useUi();
  const shown = fitHints(hints, width);
  return (
    <Text wrap="truncate">
      {shown.map((h, i) => (
        <Text key={i}>
          {i ? <Text color={theme.tone("muted")}> · </Text> : null}
          <Text bold color={theme.tone("info")}>
            {h.key}
          </Text>
          <Text color={theme.tone("muted")}> {h.label}</Text>
        </Text>
      ))}
    </Text>
  );
}

function Footer() {
  const ui = useUIState();
  const { theme } = useUi();
  const { state, width } = ui;
  const mode = modeOf(state);
  const e = state.editing;
  const hints = footerHints(mode, state.panel, ui.kind, canGoBack(ui));
  if (e?.kind === "filter" || e?.kind === "evidence") {
    const head = e.kind === "filter" ? `/${state.filter[e.list] ?? ""}▏ ` : `evidence for ${e.qid}: `;
    const room = Math.max(8, width - 24);
    const text =
      e.kind === "evidence" && cols(e.text) > room - cols(head)
        ? `…${[...e.text].slice(-(room - cols(head) - 1)).join("")}`
        : e.kind === "evidence"
          ? e.text
          : "";
    const typed = fit(`${head}${text}${e.kind === "evidence" ? "▏ " : ""}`, Math.max(8, width - 20));
    return (
      <Box width={width}>
        <Text wrap="truncate">{typed} </Text>
        <Hints hints={hints} width={Math.max(0, width - cols(typed) - 1)} />
      </Box>
    );
  }
  if (state.confirm) {
    const unseen = unseenRows(ui, state.confirm);
    const refused = state.flash?.text.startsWith(NOT_YET) ? `${state.flash.text} ` : "";
    // A refused y says why first (narrow terminals cut the end); else the question and what is left.
    const text =
      refused ||
      `${CONFIRM_VERB[state.confirm.act]} ${state.confirm.qid}? ${unseen > 0 ? `(${unseen} more row(s) first: j/pgdn/G) ` : ""}`;
    return (
      <Box width={width}>
        <Text color={theme.tone("warn")} bold wrap="truncate">
          {fit(text, Math.max(0, width - 14))}
        </Text>
        <Hints hints={hints} width={14} />
      </Box>
    );
  }
  if (state.flash) {
    const more = cols(state.flash.text) > width ? " (m: all)" : "";
    return (
      <Text color={theme.tone(state.flash.tone)} wrap="truncate">
        {fit(state.flash.text, width - cols(more)) + more}
      </Text>
    );
  }
  const list = mode === "pick" ? "pick" : state.panel;
  const marks = [
    state.filter[list] ? `/${state.filter[list]}` : "",
    mode === "list" && state.unmetOnly ? "[unmet]" : "",
  ]
    .filter(Boolean)
    .join(" ");
  const markText = marks && width >= 60 ? `${marks}  ` : "";
  return (
    <Box width={width}>
      {markText ? <Text color={theme.tone("accent")}>{markText}</Text> : null}
      <Hints hints={hints} width={width - cols(markText)} />
    </Box>
  );
}

/** The footer's question while a person's act waits for y. */
const CONFIRM_VERB = { approve: "approve", "approve-probe": "approve probe", prune: "confirm removed" } as const;

/** Esc has somewhere to go: a kept filter, a view to close, a place to return to. */
function canGoBack(ui: UIState): boolean {
  const s = ui.state;
  return !!s.filter[s.panel] || s.nav.length > 0 || (s.overlay !== null && s.view?.kind !== "pick");
}

function Header() {
  const ui = useUIState();
  const { theme, width } = { theme: ui.theme, width: ui.width };
  const view = ui.state.view;
  let where = view?.root ?? ui.src.root;
  let verdict = "";
  let tone: "ok" | "bad" | "accent" | "muted" = "muted";
  if (view?.kind === "ready") {
    const t = view.data.snapshot.target;
    where = t.scope ? `scope ${t.scope}` : t.mode === "legacy" ? legacyPlaces(t) : "explicit ledgers";
    const r = view.data.reduction;
    if (view.data.snapshot.problems.length > 0) {
      verdict = problemsText(view.data.snapshot.problems.length);
      tone = "bad";
    } else {
      verdict = verdictLines(view.data.reduction, "", null, false)[0] ?? "";
      tone = r.verdict === "all-met" ? "ok" : r.verdict === "handoff" ? "accent" : "bad";
    }
  }
  const verdictShown = fit(verdict, Math.max(0, width - 12));
  const left = fit(`kbz${ui.banner ? ` ${ui.banner}` : ""} · ${where}`, Math.max(8, width - cols(verdictShown) - 2));
  const gap = Math.max(1, width - cols(left) - cols(verdictShown));
  return (
    <Text wrap="truncate">
      <Text bold>{left}</Text>
      <Text>{" ".repeat(gap)}</Text>
      <Text color={theme.tone(tone)}>{fit(verdictShown, Math.max(0, width - cols(left) - gap))}</Text>
    </Text>
  );
}

function Tabs() {
  const ui = useUIState();
  const { theme } = ui;
  const panel = ui.state.panel;
  const counts = tabCounts(ui);
  const labels = tabLabels(ui.width, counts);
  return (
    <Text wrap="truncate">
      {PANELS.map((p, i) => (
        <Text
          key={p}
          inverse={p === panel}
          bold={p === panel}
          color={p === panel ? undefined : theme.tone(p === "approvals" && counts.approvals ? "warn" : "muted")}
        >
          {p === panel ? `[${labels[i]!.slice(1, -1)}]` : labels[i]}
        </Text>
      ))}
    </Text>
  );
}

/** The demo's call to action: where the person acts next, naming the key. */
export function demoCall(ui: UIState): { text: string; tone: "warn" | "ok" | "info" } {
  const data = ui.data;
  const narrow = ui.width < 80;
  if (!data) return { text: "▶ the demo is starting…", tone: "info" };
  const pending = data.approvals.items.length;
  if (pending > 0 && ui.state.panel !== "approvals")
    return {
      text: narrow
        ? `▶ your turn: 4, then a approves`
        : `▶ your turn: approve the root checks: press 4 (Approvals), then a (y confirms)`,
      tone: "warn",
    };
  if (pending > 0)
    return {
      text: narrow
        ? `▶ a approves ${data.approvals.items[0]!.qid} (y confirms)`
        : `▶ your turn: a shows the whole oracle and asks y to approve ${data.approvals.items[0]!.qid}; nothing runs until r`,
      tone: "warn",
    };
  // The root's turn comes once every leaf is VERIFIED (kbz next says verify-root), or at once without a plan.
  const rootTurn = !data.plan?.advice || data.plan.advice.action === "verify-root";
  const open = (g: (typeof data.snapshot.gates)[number]) =>
    g.state !== "met" && g.state !== "abandoned" && !g.file.includes("/gates/leaf-");
  const runnable = rootTurn ? data.snapshot.gates.find((g) => open(g) && g.gate.check !== null) : undefined;
  const manual = rootTurn ? data.snapshot.gates.find((g) => open(g) && g.gate.check === null) : undefined;
  if (runnable)
    return {
      text: narrow
        ? `▶ 3, select ${runnable.qid}, r runs it`
        : `▶ your turn: run the approved checks: press 3 (Gates), select ${runnable.qid}, r`,
      tone: "warn",
    };
  if (manual)
    return {
      text: narrow
        ? `▶ 3, select ${manual.qid}, s signs`
        : `▶ your turn: sign the manual gate ${manual.qid}: press 3 (Gates), select it, s`,
      tone: "warn",
    };
  if (data.reduction.verdict === "all-met") return { text: "✓ ALL MET: the demo is done (q quits)", tone: "ok" };
  return { text: "▶ watch the leaves advance (1 Graph, 2 Queue)", tone: "info" };
}

function DemoBanner() {
  const ui = useUIState();
  const call = demoCall(ui);
  return (
    <Text color={ui.theme.tone(call.tone)} bold wrap="truncate">
      {fit(call.text, ui.width)}
    </Text>
  );
}

function Picker({ list, selected, current }: { list: Listed<ScopeSummary>; selected: number; current: string | null }) {
  const { width, height } = useUi();
  const nameW = Math.min(24, Math.max(6, ...list.items.map((s) => cols(s.scope) + 1)));
  return (
    <Box flexDirection="column" height={height}>
      <Text wrap="truncate">
        {fit(`${list.total} scopes here; choose one (enter)${current ? `, esc keeps ${current}` : ""}:`, width)}
      </Text>
      <List
        items={list.items}
        selected={selected}
        height={height - 1}
        hidden={list.total - list.items.length}
        row={(s, _i, active) => (
          <PickRow s={s} active={active} nameW={nameW} width={width} current={s.scope === current} />
        )}
      />
    </Box>
  );
}

function PickRow({
  s,
  active,
  nameW,
  width,
  current,
}: {
  s: ScopeSummary;
  active: boolean;
  nameW: number;
  width: number;
  current: boolean;
}) {
  const { theme } = useUi();
  return (
    <Text inverse={active} wrap="truncate">
      <Text>{active ? "›" : current ? "•" : " "} </Text>
      <Text bold>{pad(s.scope, nameW)}</Text>
      <Text color={theme.tone(s.tone)}>
        {fit(`${s.verdict}  ${s.met}/${s.gates} gates met`, Math.max(0, width - nameW - 2))}
      </Text>
    </Text>
  );
}
