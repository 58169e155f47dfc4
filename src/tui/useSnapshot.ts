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
}

function safeLoad(src: DashSource): DashView {
  try {
    return loadDash(src);
  } catch (e) {
    return { kind: "error", root: src.root, message: (e as Error).message };
  }
}

export function useSnapshot(src: DashSource, opts: { watch: boolean } = { watch: true }): SnapshotState {
  // `src` must keep its identity while unchanged (the App holds it in state).
  const [view, setView] = useState(() => safeLoad(src));
  const hash = useRef(viewHash(view));
  const loadedFor = useRef(src);
  const reload = useCallback(() => {
    const next = safeLoad(src);
    const h = viewHash(next);
    if (h === hash.current) return;
    hash.current = h;
    setView(next);
  }, [src]);
  useEffect(() => {
    // A new source (a scope picked, the demo opened) loads at once; the first mount already loaded.
    if (loadedFor.current !== src) {
      loadedFor.current = src;
      reload();
    }
    if (!opts.watch) return;
    const w = watchWorkspace(src.root, reload);
    // A write between the first load and the watcher's initial scan raises no event: look once more.
    void w.ready.then(reload);
    return () => {
      void w.close();
    };
  }, [src, opts.watch, reload]);
  return { view, reload };
}
