import { afterEach, describe, expect, test } from "bun:test";
import { Text } from "ink";
import { cleanup, render } from "ink-testing-library";
import { useEffect, useState } from "react";
import { useIdleCollect } from "../../src/tui/useIdleCollect.ts";

afterEach(() => cleanup());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Re-renders every `everyMs` while `busy`, like a dashboard receiving keys or file events. */
function Screen({ busy, everyMs, onCollect }: { busy: boolean; everyMs: number; onCollect: () => void }) {
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(() => setN((x) => x + 1), everyMs);
    return () => clearInterval(t);
  }, [busy, everyMs]);
  // The idle time is 50 re-render intervals: only a stall of the whole test process that long
  // could look like stillness.
  useIdleCollect(1000, onCollect);
  return <Text>{n}</Text>;
}

describe("collection when idle", () => {
  test("a still screen is collected once; a screen that keeps changing is not collected until it stops", async () => {
    let collected = 0;
    const count = () => collected++;
    const r = render(<Screen busy everyMs={20} onCollect={count} />);
    await sleep(2000);
    expect(collected).toBe(0);
    r.rerender(<Screen busy={false} everyMs={20} onCollect={count} />);
    await sleep(1800);
    expect(collected).toBe(1);
    await sleep(1200);
    expect(collected).toBe(1);
  }, 15_000);
});
