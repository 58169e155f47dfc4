import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { DEMO_SLOTS, writeDemoFolder } from "../../src/demo/scope.ts";
import { writeAtomic } from "../../src/io/fs.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { KEY, frame, press, renderAt, waitForFrame } from "../helpers/ink.ts";

const plain = makeTheme({ NO_COLOR: "1" });
afterEach(() => cleanup());

describe("live updates", () => {
  test("a plan change made while the Gates panel is open shows when the Queue opens", async () => {
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} initialPanel="gates" />);
    await waitForFrame(r, (f) => f.includes("scope checkout"));
    await Bun.sleep(300);
    fs.rmSync(path.join(demo.root, ".unlazy/checkout/ACCESS.json"));
    await Bun.sleep(400);
    await press(r, "2");
    await waitForFrame(r, (f) => f.includes("kbz next cannot advise") && f.includes("ACCESS.json"));
  });

  test("a ledger replaced by rename (as agents write) shows on screen", async () => {
    const demo = writeDemoFolder(tempDir());
    const ledger = path.join(demo.root, ".unlazy/checkout/gates/leaf-1.1.md");
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} />);
    expect(frame(r)).toContain("UNMET: 15 (met: 0)");
    await Bun.sleep(150); // the watcher's initial scan
    const text = fs
      .readFileSync(ledger, "utf8")
      .replace(
        "- [ ] G1: cart totals include tax\n  EVIDENCE: pending",
        "- [x] G1: cart totals include tax\n  EVIDENCE: reviewed by Ana",
      );
    writeAtomic(ledger, text);
    const f = await waitForFrame(r, (f) => f.includes("UNMET: 14 (met: 1)"));
    expect(f).toContain("UNMET: 14 (met: 1)");
  });

  test("a new status.log line and a second write to the same file both arrive", async () => {
    const demo = writeDemoFolder(tempDir());
    const log = path.join(demo.root, ".unlazy/checkout/status.log");
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} initialPanel="log" />);
    await Bun.sleep(150);
    fs.writeFileSync(log, "2026-12-02T10:00:00.000Z dispatch w1 opened: leaf-1.1\n");
    await waitForFrame(r, (f) => f.includes("dispatch w1 opened"));
    fs.appendFileSync(log, "2026-12-02T10:00:01.000Z dispatch w1 sealed\n");
    await waitForFrame(r, (f) => f.includes("dispatch w1 sealed"));
  });

  test("a new ledger file in gates/ and a legacy GATES.md edit in place both show (only folders are watched)", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": "- [ ] G1: works\n  EVIDENCE: pending\n", "gates/.keep": "" });
    const r = await renderAt(<App root={root} scope={null} theme={plain} />);
    await Bun.sleep(150);
    fs.writeFileSync(path.join(root, "gates", "api.md"), "- [ ] A1: api answers\n  EVIDENCE: pending\n");
    await waitForFrame(r, (f) => f.includes("api:A1") && f.includes("UNMET: 2 (met: 0)"));
    fs.writeFileSync(path.join(root, "GATES.md"), "- [x] G1: works\n  EVIDENCE: reviewed by Ana\n");
    await waitForFrame(r, (f) => f.includes("UNMET: 1 (met: 1)"));
    fs.writeFileSync(path.join(root, "README.md"), "not a ledger\n");
    fs.rmSync(path.join(root, "gates", "api.md"));
    await waitForFrame(r, (f) => f.includes("ALL MET (1 met)"));
  });

  test("a ledger that becomes invalid shows the file, line and message instead of crashing", async () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": "# Gates\n\n- [ ] G1: works\n  EVIDENCE: pending\n" });
    const r = await renderAt(<App root={root} scope={null} theme={plain} />);
    await Bun.sleep(150);
    writeAtomic(path.join(root, "GATES.md"), "# Gates\n\n- [ ] G1: works\n  CHECK: true\n");
    const f = await waitForFrame(r, (f) => f.includes("INVALID"));
    expect(f).toMatch(/GATES\.md:\d+: /);
  });

  test("an unchanged rewrite does not produce a new frame (content-hash de-duplication)", async () => {
    const demo = writeDemoFolder(tempDir());
    const ledger = path.join(demo.root, ".unlazy/checkout/GATES.md");
    const r = await renderAt(<App root={demo.root} scope={null} theme={plain} />);
    await Bun.sleep(150);
    const before = r.frames.length;
    writeAtomic(ledger, fs.readFileSync(ledger, "utf8"));
    await Bun.sleep(400);
    expect(r.frames.length).toBe(before);
  });
});

describe("choosing what to show", () => {
  test("several scopes: a picker, and enter opens the chosen one", async () => {
    const root = tempDir();
    writeTree(root, {
      ".unlazy/api/GATES.md": "- [ ] A1: api works\n  EVIDENCE: pending\n",
      ".unlazy/web/GATES.md": "- [ ] W1: web works\n  EVIDENCE: pending\n",
    });
    const r = await renderAt(<App root={root} scope={null} theme={plain} watch={false} />);
    expect(frame(r)).toContain("2 scopes here");
    await press(r, "j", KEY.enter);
    const f = await waitForFrame(r, (f) => f.includes("scope web"));
    expect(f).toContain("GATES:W1");
  });

  test("a folder with no ledgers offers the demo, and enter opens it with the demo's slots (as kbz demo)", async () => {
    const root = tempDir();
    const demo = writeDemoFolder(tempDir());
    const r = await renderAt(
      <App
        root={root}
        scope={null}
        theme={plain}
        watch={false}
        openDemo={async () => ({ root: demo.root, scope: demo.scope, slots: DEMO_SLOTS })}
      />,
    );
    expect(frame(r)).toContain("Press enter to open the built-in demo");
    await press(r, KEY.enter);
    const f = await waitForFrame(r, (f) => f.includes("scope checkout"));
    expect(f).toContain("kbz demo");
    await press(r, "2");
    await waitForFrame(r, (f) => f.includes(`${DEMO_SLOTS} slots`));
  });
});
