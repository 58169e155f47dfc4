// Invisible and format characters (issue 15 point 6) never reach the terminal raw: U+200B and
// U+200D are shown escaped by status, check, the approval prompt, approvals list and --json.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";

setDefaultTimeout(120_000);

const CF = /\p{Cf}/u;
const ledger =
  "# Gates: cf\n\n- [ ] G1: zero\u200dwidth title\n  CHECK: ca\u200bt /etc/hostname\n  EXPECT: /./\n  EVIDENCE: pending\n";

describe("invisible characters", () => {
  test("CHECK: ca<U+200B>t /etc/hostname is shown as ca\\u200bt, never as cat, everywhere it is displayed", () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": ledger });
    const env = agentEnv();
    const outputs = [
      kbz(["status"], { cwd: dir, env }),
      kbz(["status", "--json"], { cwd: dir, env }),
      // The whole oracle is shown with --verbose (the default is one line per gate, issue 43).
      kbz(["check", "--verbose"], { cwd: dir, env }),
      kbz(["check", "--json"], { cwd: dir, env }),
      kbz(["check", "--approve"], { cwd: dir, env }),
      kbz(["approvals", "list"], { cwd: dir, env }),
      kbz(["approvals", "list", "--json"], { cwd: dir, env }),
    ];
    for (const r of outputs) expect(CF.test(r.stdout + r.stderr)).toBe(false);
    expect(outputs[0]!.stdout).toContain("zero\\u200dwidth title");
    expect(outputs[2]!.stdout).toContain("    CHECK: ca\\u200bt /etc/hostname");
    expect(outputs[4]!.stdout).toContain("ca\\u200bt: not found");
    expect(outputs[5]!.stdout).toContain("ca\\u200bt /etc/hostname");
    // JSON keeps the data exact: decoded, the value is the ledger's own text.
    expect(JSON.parse(outputs[3]!.stdout).approvals.required[0].check).toBe("ca\u200bt /etc/hostname");
  });
});
