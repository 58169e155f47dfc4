// The dashboard's data: loaded once, then reloaded after file changes (debounced by the
// watcher) and after the dashboard's own actions. A reload whose inputs hash the same as the
// previous one changes nothing, so an event storm never causes a redraw storm.
//
// A reload has two phases. The ledgers, log and approvals are read first and shown at once
// (unchanged ledgers come from a stat-checked cache); the plan side (PLAN.md and `kbz next`'s
// snapshot, which re-reads every leaf ledger to check its inputs were stable) follows a frame
// later, so a gate write reaches the screen without waiting for the scheduler.
import { useCallback, useEffect, useRef, useState } from "react";
import { loadDash, loadPlan, viewHash, type DashSource, type DashView } from "./load.ts";
import { LedgerCache } from "./ledgerCache.ts";
import { planProblem } from "./plan.ts";
import { watchWorkspace } from "./watch.ts";
import { refreshView, storeFor } from "../io/store/active.ts";

export interface SnapshotState {
  view: DashView;
  /** Re-read now (after the dashboard itself wrote something). */
  reload: () => void;
}

/** After the first phase's frame is written: past one frame at the dashboard's frame rate. */
const PLAN_DELAY_MS = 60;

function safeLoad(src: DashSource, cache: LedgerCache, withPlan: boolean): DashView {
  try {
    return loadDash(src, cache, withPlan);
  } catch (e) {
    return { kind: "error", root: src.root, message: (e as Error).message };
  }
}

export function useSnapshot(src: DashSource, opts: { watch: boolean } = { watch: true }): SnapshotState {
  // `src` must keep its identity while unchanged (the App holds it in state).
  const cache = useRef<LedgerCache | null>(null);
  cache.current ??= new LedgerCache();
  const [view, setView] = useState(() => safeLoad(src, cache.current!, true));
  const shown = useRef(view);
  const hash = useRef(viewHash(view));
  const loadedFor = useRef(src);
  const planTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  /** Show `next` unless it hashes like what is shown; true when it changed the screen. */
  const publish = useCallback((next: DashView): boolean => {
    const h = viewHash(next);
    if (h === hash.current) return false;
    hash.current = h;
    shown.current = next;
    setView(next);
    return true;
  }, []);

  const planPhase = useCallback(() => {
    planTimer.current = null;
    const v = shown.current;
    if (v.kind !== "ready") return;
    try {
      publish({ ...v, data: loadPlan(src, v.data, cache.current!) });
    } catch (e) {
      publish({ ...v, data: { ...v.data, plan: planProblem((e as Error).message), planHash: `error:${(e as Error).message}` } });
    }
  }, [src, publish]);

  const schedulePlan = useCallback(() => {
    if (planTimer.current) clearTimeout(planTimer.current);
    planTimer.current = setTimeout(planPhase, PLAN_DELAY_MS);
  }, [planPhase]);

  // Set when the first phase changed the screen: the plan phase waits until that frame is committed.
  const planAfterCommit = useRef(false);

  const reload = useCallback(() => {
    const fast = safeLoad(src, cache.current!, false);
    const prev = shown.current;
    if (fast.kind !== "ready") {
      publish(fast);
      return;
    }
    // Keep the plan on screen while it is re-read (same scope only).
    const keep = prev.kind === "ready" && prev.data.snapshot.target.scope === fast.data.snapshot.target.scope && prev.root === fast.root;
    const changed = publish(keep ? { ...fast, data: { ...fast.data, plan: prev.data.plan, planHash: prev.data.planHash } } : fast);
    if (changed) planAfterCommit.current = true;
    else schedulePlan();
  }, [src, publish, schedulePlan]);

  useEffect(() => {
    if (!planAfterCommit.current) return;
    planAfterCommit.current = false;
    schedulePlan();
  }, [view, schedulePlan]);

  useEffect(() => {
    // A new source (a scope picked, the demo opened) loads at once; the first mount already loaded.
    if (loadedFor.current !== src) {
      loadedFor.current = src;
      reload();
    }
    const stopPlan = () => {
      if (planTimer.current) clearTimeout(planTimer.current);
    };
    if (!opts.watch) return stopPlan;
    const w = watchWorkspace(src.root, reload);
    // With a coordinator, its changes arrive by an etcd watch (a no-op for the files, which the
    // file watcher covers): read the store's view again, then reload from it.
    const refresh = () => void refreshView(src.root, src.scope).then(reload, reload);
    const stopStore = storeFor(src.root).watch(refresh);
    // A write between the first load and the watcher's initial scan raises no event: look once more.
    void w.ready.then(reload);
    return () => {
      stopPlan();
      stopStore();
      void w.close();
    };
  }, [src, opts.watch, reload]);
  return { view, reload };
}
