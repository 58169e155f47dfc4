import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { writeDemoFolder } from "../../src/demo/scope.ts";
import { tempDir } from "../helpers/kbz.ts";
import { render } from "ink";
import { KEY, fakeStreams, frame, press, renderAt, resize, settle } from "../helpers/ink.ts";

const plain = makeTheme({ NO_COLOR: "1" });

afterEach(() => cleanup());

function lines(f: string): string[] {
  return f.split("\n");
}

describe("dashboard shell", () => {
  test("opens on the Gates panel with the scope and verdict in the header", async () => {
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} watch={false} />);
    const f = frame(r);
    expect(lines(f)[0]).toContain("scope checkout");
    expect(lines(f)[0]).toContain("UNMET: 15 (met: 0)");
    expect(f).toContain("GATES:I1");
    expect(f).toContain("checkout is wired end to end");
  });

  test("the frame on 80x24 is shorter than the terminal and no row is wider than 80", async () => {
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} watch={false} />, 80, 24);
    const rows = lines(frame(r));
    expect(rows.length).toBeLessThan(24);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(80);
  });

  test("follows a resize: a smaller terminal gets a smaller frame", async () => {
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} watch={false} />, 100, 30);
    expect(lines(frame(r)).length).toBe(29);
    resize(r, 60, 12);
    await settle();
    const rows = lines(frame(r));
    expect(rows.length).toBe(11);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(60);
  });

  test("tab, shift-tab, l, h and digits switch panels; ? shows help and esc closes it", async () => {
    const demo = writeDemoFolder(tempDir());
    fs.writeFileSync(
      path.join(demo.root, ".unlazy/checkout/status.log"),
      "2026-12-02T10:00:00.000Z dispatch w1 opened: leaf-1.1\n",
    );
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} watch={false} />);
    await press(r, KEY.tab, KEY.tab);
    expect(frame(r)).toContain("dispatch w1 opened: leaf-1.1");
    await press(r, KEY.shiftTab, KEY.shiftTab);
    expect(frame(r)).toContain("GATES:I1");
    await press(r, "5");
    expect(frame(r)).toContain("dispatch w1 opened");
    await press(r, "h", "h");
    expect(frame(r)).toContain("GATES:I1");
    await press(r, "?");
    expect(frame(r)).toContain("Keys: enter runs the selected one");
    await press(r, KEY.escape);
    expect(frame(r)).not.toContain("Keys: enter runs the selected one");
  });

  test("the grouped ? help runs the selected key with enter", async () => {
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} watch={false} />, 100, 40);
    await press(r, "?");
    const help = frame(r);
    expect(help).toMatch(/^Gates\s+enter/m);
    expect(help).toMatch(/^everywhere\s+esc/m);
    const rows = help.split("\n").slice(3);
    const at = rows.findIndex((l) => /^\s*u\s+only what is not done/.test(l) || /\su\s+only what is not done/.test(l));
    expect(at).toBeGreaterThan(0);
    await press(r, ...Array.from({ length: at }, () => "j"), KEY.enter);
    expect(frame(r)).toContain("showing only what is not done");
    expect(frame(r)).not.toContain("Keys: enter runs");
  });

  test("j/k and arrows move the selection and the detail follows it", async () => {
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} watch={false} />);
    expect(frame(r)).toContain("CHECK    cat web/checkout/STATUS");
    await press(r, "j");
    expect(frame(r)).toContain("CHECK    ls web");
    await press(r, KEY.down, KEY.down, KEY.down);
    expect(frame(r)).toMatch(/› UNMET\s+leaf-1\.1:G2/);
    await press(r, "k", KEY.up, "k");
    expect(frame(r)).toMatch(/› UNMET\s+GATES:I2/);
    await press(r, "G");
    expect(frame(r)).toMatch(/› UNMET\s+leaf-3\.2:G2/);
  });

  test("keys arriving together in one chunk (key repeat) each count", async () => {
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} watch={false} />);
    await press(r, "jjjj");
    expect(frame(r)).toMatch(/› UNMET\s+leaf-1\.1:G2/);
    await press(r, "\t\t");
    expect(frame(r)).toContain("[5 Log]");
  });

  test("q unmounts the dashboard (the process can exit)", async () => {
    const demo = writeDemoFolder(tempDir());
    const { stdout, stdin } = fakeStreams();
    const ink = render(<App root={demo.root} scope={null} theme={plain} watch={true} />, {
      stdout: stdout as any,
      stdin: stdin as any,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    await settle();
    stdin.write("q");
    const result = await Promise.race([
      ink.waitUntilExit().then(() => "exited"),
      Bun.sleep(3000).then(() => "still running"),
    ]);
    expect(result).toBe("exited");
  });
});
