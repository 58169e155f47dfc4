// Issue 20.11: agreement with the originals on interrupted receipts and byte-order marks.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "../../helpers/approvals.ts";
import { kbz, tempDir, writeTree } from "../../helpers/kbz.ts";
import { receiptScope } from "../../core/schedule/receipt-scope.ts";

setDefaultTimeout(60_000);
const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function repo(files: Record<string, string | Uint8Array>) {
  const dir = tempDir("kbz-agree-");
  const env = agentEnv();
  made.push(dir, path.dirname(env.HOME!));
  writeTree(dir, files);
  return { dir, run: (args: string[]) => kbz(args, { cwd: dir, env }) };
}

describe("issue 20.11: agreement with the originals", () => {
  test('a receipt left "status": "running" raises verification-unfinished-verification for that leaf (not exit 2)', () => {
    const policy = { inputs: ["src/1"], env: [], closed: true };
    const { run } = repo({
      ...receiptScope(),
      ".unlazy/verification-receipts.json": JSON.stringify({
        schema: 1,
        receipts: { ".unlazy/api/gates/leaf-1.md": { status: "running", policy } },
      }),
    });
    const j = JSON.parse(run(["next", "--scope", "api", "--slots", "1", "--json"]).stdout);
    expect(j.action).toBe("review");
    expect(j.attention).toContainEqual(expect.objectContaining({ reason: "verification-unfinished-verification" }));
    const text = run(["next", "--scope", "api", "--slots", "1"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("verification-unfinished-verification");
  });

  test("fixes Kill_bezzangyi bug: a UTF-8 BOM hid the gate on line 1; kbz strips the BOM and sees that gate", () => {
    const bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from("- [ ] G1: first line gate\n  CHECK: printf BOM_OK\n  EXPECT: BOM_OK\n  EVIDENCE: pending\n"),
    ]);
    const { dir, run } = repo({ "GATES.md": bom });
    const status = run(["status", "--json"]);
    expect(JSON.parse(status.stdout).gates.map((g: { qid: string }) => g.qid)).toEqual(["GATES:G1"]);
    expect(run(["lint", "GATES.md"]).code).not.toBe(2);
    const r = run(["check", "--approve"]);
    expect([r.code, r.stdout.trimEnd().split("\n").pop()]).toEqual([0, "ALL MET (1 met)"]);
    expect(fs.readFileSync(path.join(dir, "GATES.md"), "utf8")).toStartWith("- [x] G1: first line gate\n");
  });
});
