// The probe key (issue 18): p on a met gate runs the vacuity probe through the same runProbes as
// `kbz check --probe`, flashes the verdict and the gate detail shows it. It never approves: an
// unapproved probe is reported, as r reports an unapproved run. Skipped only where bwrap cannot
// run, never in CI (KBZ_CI=1).
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { cleanup } from "ink-testing-library";
import { App } from "../../src/tui/App.tsx";
import { makeTheme } from "../../src/tui/theme.ts";
import { needs } from "../helpers/needs.ts";
import { PROBES_DIR } from "../../src/io/check/probeRecords.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { KEY, frame, press, renderAt, waitForFrame } from "../helpers/ink.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";
/** A person reads the oracle before confirming: a y sooner is refused (issue 41). */
const READ_MS = MIN_READ_MS + 100;

setDefaultTimeout(60_000);
const plain = makeTheme({ NO_COLOR: "1" });
afterEach(() => cleanup());

const usable = { ok: needs("bwrap") };

// G1's CHECK ignores its INPUTS (target.txt): it passes with the target hidden.
const LEDGER = `# Gates

- [ ] G1: target.txt holds the value
  CHECK: sh ignores.sh
  EXPECT: ok
  INPUTS: target.txt
  EVIDENCE: pending
`;

function workspace() {
  const root = tempDir();
  writeTree(root, { "GATES.md": LEDGER, "ignores.sh": "echo ok\n", "target.txt": "good\n" });
  const env = agentEnv();
  expect(kbz(["check", "--approve"], { cwd: root, env }).code).toBe(0);
  return { root, env };
}

describe.skipIf(!usable.ok)("p probes the selected gate", () => {
  test("on an approved gate whose CHECK ignores its INPUTS, p flashes VACUOUS with what was hidden and the detail shows it", async () => {
    const { root, env } = workspace();
    // Approve the probe's oracle the CLI way, then forget its result: the dashboard must find it anew.
    expect(kbz(["check", "--probe", "--approve"], { cwd: root, env }).code).toBe(1);
    fs.rmSync(path.join(root, PROBES_DIR), { recursive: true, force: true });
    const before = fs.readFileSync(path.join(root, "GATES.md"), "utf8");
    const r = await renderAt(
      <App root={root} scope={null} theme={plain} env={env} watch={false} initialPanel="gates" />,
    );
    expect(frame(r)).toContain("ALL MET");
    await press(r, "p");
    const f = await waitForFrame(r, (f) => f.includes("VACUOUS GATES:G1"));
    expect(f).toContain("VACUOUS GATES:G1: passed with its deliverable hidden (INPUTS: target.txt)");
    await press(r, KEY.enter);
    const d = await waitForFrame(r, (f) => f.includes("Gate GATES:G1"));
    expect(d.replace(/\n\s*/g, " ")).toMatch(
      /probe\s+VACUOUS GATES:G1: passed with its deliverable hidden \(INPUTS: target\.txt\)/,
    );
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toBe(before); // the probe never writes evidence
    expect(fs.readdirSync(path.join(root, PROBES_DIR)).length).toBe(1); // recorded like kbz check --probe
  });

  test("an unapproved probe does not run: p says a person's approval is needed and lists it in Approvals", async () => {
    const { root, env } = workspace();
    fs.writeFileSync(path.join(root, "ignores.sh"), "touch probed; echo ok\n"); // would leave a marker if it ran
    // The CHECK's script is its oracle (issue 27): the person approves the new one; its run leaves the marker once.
    expect(kbz(["check", "--approve", "--reverify"], { cwd: root, env }).code).toBe(0);
    fs.rmSync(path.join(root, "probed"));
    const r = await renderAt(
      <App root={root} scope={null} theme={plain} env={env} watch={false} initialPanel="gates" />,
    );
    await press(r, "p");
    const f = await waitForFrame(r, (f) => f.includes("not probed"));
    expect(f).toContain("GATES:G1 not probed: the probe hides 1 path(s)");
    await Bun.sleep(200);
    expect(fs.existsSync(path.join(root, "probed"))).toBe(false);
    expect(fs.existsSync(path.join(root, PROBES_DIR))).toBe(false);
  });

  test("probe approvals live in the Approvals panel: a shows what it hides, y approves and probes", async () => {
    const { root, env } = workspace();
    const r = await renderAt(
      <App root={root} scope={null} theme={plain} env={env} watch={false} initialPanel="gates" />,
    );
    await press(r, "p");
    await waitForFrame(r, (f) => f.includes("not probed"));
    await press(r, "4");
    let f = await waitForFrame(r, (f) => /PROBE\?\s+GATES:G1/.test(f));
    expect(f).toMatch(/hides\s+\S*target\.txt/);
    await press(r, "a");
    f = await waitForFrame(r, (f) => f.includes("Approve the probe of GATES:G1?"));
    await Bun.sleep(READ_MS);
    await press(r, "G", "y"); // the whole view on screen first (issue 44 item 6)
    f = await waitForFrame(r, (f) => f.includes("VACUOUS GATES:G1"), 15_000);
    expect(fs.readdirSync(path.join(root, PROBES_DIR)).length).toBe(1);
    expect(f).not.toMatch(/PROBE\?\s+GATES:G1/);
  }, 30_000);
});
