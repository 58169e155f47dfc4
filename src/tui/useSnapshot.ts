// The dashboard's data: loaded once, then reloaded after file changes (debounced by the
// watcher) and after the dashboard's own actions. A reload whose inputs hash the same as the
// previous one changes nothing, so an event storm never causes a redraw storm.
import { useCallback, useEffect, useRef, useState } from "react";
import { loadDash, viewHash, type DashSource, type DashView } from "./load.ts";
import { watchWorkspace } from "./watch.ts";

export interface SnapshotState {
  view: DashView;
  /** Re-read now (after the dashboard itself wrote something). */
  reload: () => void;
  /** How many reloads produced a different view (shown in the header as a heartbeat). */
  generation: number;
}

function safeLoad(src: DashSource): DashView {
  try {
    return loadDash(src);
  } catch (e) {
    return { kind: "error", root: src.root, message: (e as Error).message };
  }
}

export function useSnapshot(src: DashSource, opts: { watch: boolean; onFrameData?: () => void } = { watch: true }): SnapshotState {
  const [state, setState] = useState(() => ({ view: safeLoad(src), generation: 0 }));
  const hash = useRef(viewHash(state.view));
  const loadedFor = useRef(`${src.root}\0${src.scope}`);
  const reload = useCallback(() => {
    const next = safeLoad(src);
    const h = viewHash(next);
    if (h === hash.current) return;
    hash.current = h;
    setState((s) => ({ view: next, generation: s.generation + 1 }));
    opts.onFrameData?.();
  }, [src.root, src.scope]);
  useEffect(() => {
    // A new source (a scope picked) loads at once; the first mount already loaded.
    const key = `${src.root}\0${src.scope}`;
    if (loadedFor.current !== key) {
      loadedFor.current = key;
      reload();
    }
    if (!opts.watch) return;
    const w = watchWorkspace(src.root, reload);
    return () => {
      void w.close();
    };
  }, [src.root, src.scope, opts.watch, reload]);
  return { view: state.view, reload, generation: state.generation };
}
