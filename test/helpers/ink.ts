// Driving Ink components in tests (ecosystem docs/formats.md#lint): a visible frame does not mean the input
// handlers are attached, so every step yields setImmediate → setTimeout(0) before the next one.
import { render } from "ink-testing-library";
import { createElement, type ReactElement } from "react";
import { UiProvider } from "../../src/tui/context.tsx";
import { makeTheme } from "../../src/tui/theme.ts";

export type Rendered = ReturnType<typeof render>;

export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 0));
  }
}

/** Render at a given terminal size; the stdout reports it and announces it as a resize. */
export async function renderAt(tree: ReactElement, columns = 80, rows = 24): Promise<Rendered> {
  const r = render(tree);
  resize(r, columns, rows);
  await settle();
  return r;
}

export function resize(r: Rendered, columns: number, rows: number): void {
  Object.defineProperty(r.stdout, "columns", { value: columns, configurable: true });
  Object.defineProperty(r.stdout, "rows", { value: rows, configurable: true });
  r.stdout.emit("resize");
}

export const KEY = {
  up: "\u001B[A",
  down: "\u001B[B",
  right: "\u001B[C",
  left: "\u001B[D",
  tab: "\t",
  shiftTab: "\u001B[Z",
  enter: "\r",
  escape: "\u001B",
  pageDown: "\u001B[6~",
  end: "\u001B[F",
};

export async function press(r: Rendered, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    r.stdin.write(k);
    await settle();
  }
}

export function frame(r: Rendered): string {
  return r.lastFrame() ?? "";
}

/** Wait until the frame satisfies `ok` (file watchers and check runs are asynchronous). */
export async function waitForFrame(r: Rendered, ok: (f: string) => boolean, timeoutMs = 15_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const f = frame(r);
    if (ok(f)) return f;
    if (Date.now() > end) throw new Error(`frame never matched within ${timeoutMs} ms; last frame:\n${f}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Streams for mounting with Ink's own render when a test needs the instance (exit, unmount). */
export function fakeStreams(columns = 80, rows = 24) {
  const { EventEmitter } = require("node:events") as typeof import("node:events");
  const stdout = Object.assign(new EventEmitter(), {
    columns,
    rows,
    frames: [] as string[],
    write(s: string) {
      stdout.frames.push(s);
      return true;
    },
  });
  let pending: string | null = null;
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    setEncoding() {},
    setRawMode() {},
    resume() {},
    pause() {},
    ref() {},
    unref() {},
    read() {
      const d = pending;
      pending = null;
      return d;
    },
    write(d: string) {
      pending = d;
      stdin.emit("readable");
      stdin.emit("data", d);
    },
  });
  return { stdout, stdin };
}

/** A panel as the App mounts it: inside the theme and box it would get. */
export function inBox(
  el: ReactElement,
  width: number,
  height: number,
  theme = makeTheme({ NO_COLOR: "1" }),
): ReactElement {
  return createElement(UiProvider, { theme, width, height, children: el });
}
