// Issue 44 item 6 on the binary in a real terminal (tmux), as a person: at 40x10 the dashboard
// asked "Approve GATES:G1 exactly as shown? y" while showing rows 1-3 of 21, and took y. Now y
// counts only once the whole oracle has been on screen (scrolled to its last row, or all of it
// fits): before that it records nothing and says how many rows are left. Fails on 571b8e3.
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { checkEnv } from "../../helpers/approvals.ts";
import { BIN, tempDir, writeTree } from "../../helpers/kbz.ts";
import { TmuxPane, haveTmux } from "../../helpers/tmux.ts";
import { MIN_READ_MS } from "../../../src/tui/state.ts";

const panes: TmuxPane[] = [];
afterEach(() => {
  for (const p of panes.splice(0)) p.kill();
});

const CHECK =
  "echo the quick brown fox jumps over the lazy dog and keeps running far past the edge of any narrow terminal; node -e 'console.log(1)'; echo FOX_OK";
const records = (store: string) => fs.readdirSync(store).filter((n) => n.endsWith(".json")).length;

describe.skipIf(!haveTmux())(
  "issue 44 item 6: consent at small sizes → y only after the whole oracle was on screen",
  () => {
    for (const [w, h] of [
      [40, 10],
      [80, 12],
    ] as const) {
      test(`${w}x${h}: y on the first rows records nothing and says what is left; after the last row (G) y approves`, async () => {
        const root = tempDir("kbz-first-consent-");
        writeTree(root, {
          "GATES.md": `# Gates: fox\n\n- [ ] G1: the fox runs\n  CHECK: ${CHECK}\n  EXPECT: FOX_OK\n  EVIDENCE: pending\n`,
        });
        const env = checkEnv();
        const p = new TmuxPane(w, h);
        panes.push(p);
        p.start([BIN], root, env);
        await p.waitFor((s) => s.includes("UNMET: 1"));
        p.send("4");
        await p.waitFor((s) => /(APPROVE\?|\?)\s+GATES:G1/.test(s));
        p.send("a");
        const asked = await p.waitFor((s) => s.includes("approve GATES:G1?"));
        expect(asked).toMatch(/rows 1-\d+ of \d+/); // the oracle does not fit: only its first rows show
        await Bun.sleep(MIN_READ_MS + 100); // long enough to read (issue 41's timing rule is not what is tested here)
        p.send("y");
        await p.waitFor((s) => s.includes("not yet:") || s.includes("approved GATES:G1"));
        expect(p.capture()).toContain("not yet:");
        expect(records(env.UNLAZY_APPROVAL_DIR!)).toBe(0);
        expect(p.capture()).toContain("Approve GATES:G1 exactly as shown?"); // still asking
        p.send("G");
        await p.waitFor((s) => /rows \d+-(\d+) of \1\b/.test(s));
        p.send("y");
        await p.waitFor((s) => s.includes("approved GATES:G1"));
        expect(records(env.UNLAZY_APPROVAL_DIR!)).toBe(1);
        p.send("q");
        await p.waitFor((s) => s.includes("EXIT="));
      }, 60_000);
    }
  },
);
