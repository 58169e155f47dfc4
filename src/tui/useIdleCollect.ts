// Memory between events. The dashboard is idle most of its life, and JavaScriptCore does not
// collect while a process waits: after a burst of reloads and key presses the garbage of the
// last ones stays resident for as long as the screen is still (bench/dashboard.ts, 1,000 leaves
// and 5,000 gates: 156 MB resident four seconds after the last write without a collection).
// So once the screen has been still for IDLE_MS, one full collection runs and the allocator
// hands the freed pages back. Any re-render (a key, a reload, the running-check spinner)
// re-arms the timer instead, so nothing runs while a person types or files keep changing, and
// a still screen is collected once. The collection takes a few milliseconds on this heap; a key
// pressed during it waits that long.
import { useEffect } from "react";

export const IDLE_MS = 1000;

/** A synchronous full collection that also returns the allocator's free pages; none outside Bun. */
function fullCollection(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
}

/** Collect once after `idleMs` without a re-render of the caller. */
export function useIdleCollect(idleMs = IDLE_MS, collect: () => void = fullCollection): void {
  useEffect(() => {
    const t = setTimeout(collect, idleMs);
    return () => clearTimeout(t);
  });
}
