// `explain`: why a receipt is not reusable, in a person's words, naming the exact thing.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { explainReceipt, MAX_INPUT_CHANGES } from "../../../src/io/receipts/explain.ts";
import { RECEIPTS_FILE } from "../../../src/io/receipts/file.ts";
import { GATES, workspace, type Workspace } from "./workspace.ts";

const why = (ws: Workspace, ledger = "GATES.md", env = ws.env) => explainReceipt(ws.root, ledger, { env });
const texts = (ws: Workspace, ledger = "GATES.md", env = ws.env) => why(ws, ledger, env).changes.map((c) => c.text);

describe("explain", () => {
  test("a current receipt: nothing changed", async () => {
    const ws = workspace();
    await ws.run();
    expect(why(ws)).toEqual({ key: "GATES.md", current: true, reason: null, changes: [] });
  });

  test("names the changed, added and removed input files by path", async () => {
    const ws = workspace({ "src/old.txt": "old" });
    await ws.run();
    ws.write("src/value.txt", "good \n");
    ws.write("src/new/deep.txt", "n");
    fs.rmSync(path.join(ws.root, "src/old.txt"));
    const e = why(ws);
    expect(e.reason).toBe("changed-inputs-or-verifier");
    expect(e.changes).toEqual([
      { kind: "input-added", path: "src/new", text: "input directory src/new was added" },
      { kind: "input-added", path: "src/new/deep.txt", text: "input file src/new/deep.txt was added" },
      { kind: "input-removed", path: "src/old.txt", text: "input file src/old.txt was removed" },
      { kind: "input-changed", path: "src/value.txt", text: "input file src/value.txt changed" },
    ]);
  });

  test("a declared input that was absent at acceptance and now exists", async () => {
    const ws = workspace();
    await ws.run({ inputs: ["src", "tests", "config.json"] });
    ws.write("config.json", "{}");
    expect(texts(ws)).toEqual(["input file config.json was added"]);
  });

  test("names which gate definition changed and which part", async () => {
    const ws = workspace({
      "GATES.md": GATES + "\n- [ ] G2: second\n  CHECK: sh tests/check.sh\n  EXPECT: REAL_OK\n  EVIDENCE: pending\n",
    });
    await ws.run();
    ws.write("GATES.md", ws.read("GATES.md").replace("G2: second", "G2: second, reworded"));
    expect(why(ws).reason).toBe("changed-ledger-or-evidence");
    expect(texts(ws)).toEqual(["gate G2 definition changed (title)"]);
  });

  test("a changed CHECK leaves the gate unmet and says both", async () => {
    const ws = workspace();
    await ws.run();
    ws.write("GATES.md", ws.read("GATES.md").replace("CHECK: sh tests/check.sh", "CHECK: sh  tests/check.sh"));
    expect(texts(ws)).toEqual([
      "gate G1 is not met now (checked but automatic evidence is stale or unbound)",
      "gate G1 definition changed (CHECK)",
    ]);
  });

  test("added and removed gates, and prose outside the gates", async () => {
    const ws = workspace({
      "GATES.md": "# Gates\n\n- [x] M1: one\n  EVIDENCE: seen by Ana\n- [x] M2: two\n  EVIDENCE: seen by Ana\n",
    });
    await ws.run({ reviewed: true });
    ws.write(
      "GATES.md",
      "# Gates (renamed)\n\n- [x] M1: one\n  EVIDENCE: seen by Ana\n- [x] M2: two\n  EVIDENCE: seen by Ana\n",
    );
    expect(texts(ws)).toEqual(["ledger text outside the gates changed (headings, prose, OWNS, ABANDON or gate order)"]);
    ws.write("GATES.md", "# Gates\n\n- [x] M1: one\n  EVIDENCE: seen by Bo\n- [x] M2: two\n  EVIDENCE: seen by Ana\n");
    expect(texts(ws)).toEqual(["check marks or evidence in the ledger changed since acceptance"]);
    ws.write(
      "GATES.md",
      "# Gates\n\n- [x] M1: one\n  EVIDENCE: seen by Ana\n- [x] M3: three\n  EVIDENCE: seen by Ana\n",
    );
    expect(texts(ws)).toEqual(["gate M2 was removed from the ledger", "gate M3 was added to the ledger"]);
  });

  test("an abandoned gate is named", async () => {
    const ws = workspace();
    await ws.run();
    ws.write("GATES.md", ws.read("GATES.md") + "\nABANDON: G1 needs hardware\n");
    expect(texts(ws)).toEqual(["gate G1 is not met now (abandoned)", "gate G1 definition changed (ABANDON)"]);
  });

  test("names which environment value changed, was set or was unset", async () => {
    const ws = workspace();
    const env = { ...ws.env, API_MODE: "live", REGION: "eu" };
    await ws.run({ env: ["API_MODE", "REGION", "TRACE"], processEnv: env });
    const now = { ...env, API_MODE: "mock", TRACE: "1" } as Record<string, string>;
    delete now.REGION;
    expect(texts(ws, "GATES.md", now)).toEqual([
      "environment value API_MODE changed",
      "environment value REGION was unset",
      "environment value TRACE was set",
    ]);
  });

  test("no receipt, and a renamed ledger whose receipt stayed under the old path", async () => {
    const ws = workspace();
    expect(why(ws).changes).toEqual([
      { kind: "no-receipt", text: "there is no receipt for GATES.md; it was never run with kbz verify run" },
    ]);
    await ws.run();
    fs.mkdirSync(path.join(ws.root, "gates"));
    fs.renameSync(path.join(ws.root, "GATES.md"), path.join(ws.root, "gates/value.md"));
    const e = why(ws, "gates/value.md");
    expect(e.reason).toBe("missing-receipt");
    expect(e.changes).toEqual([
      {
        kind: "renamed",
        path: "GATES.md",
        text: "it was accepted as GATES.md, which no longer exists; receipts are keyed by ledger path and do not follow a rename",
      },
    ]);
  });

  test("pending, rejected and non-closed receipts", async () => {
    const ws = workspace();
    await ws.run({ closed: false });
    expect(texts(ws)).toEqual(["it was accepted without --closed; such receipts are never reused"]);
    ws.write("src/value.txt", "bad\n");
    await ws.run();
    expect(texts(ws)[0]).toStartWith("the last run was not accepted");
    const store = JSON.parse(ws.read(RECEIPTS_FILE));
    store.receipts["GATES.md"].status = "pending";
    ws.write(RECEIPTS_FILE, JSON.stringify(store));
    expect(texts(ws)[0]).toStartWith("the last run did not finish");
  });

  test("a receipt written by the original tool (no fingerprint) is explained honestly", async () => {
    const ws = workspace();
    await ws.run();
    const store = JSON.parse(ws.read(RECEIPTS_FILE));
    delete store.receipts["GATES.md"].fingerprint;
    store.receipts["GATES.md"].context = "a340af12e2bd0e059259834fac6550ca8291588c4fe7e4c61e86d9fa6248db1b";
    ws.write(RECEIPTS_FILE, JSON.stringify(store));
    expect(why(ws).reason).toBe("changed-inputs-or-verifier");
    expect(why(ws).changes.map((c) => c.kind)).toEqual(["no-fingerprint"]);
  });

  test(`input changes are listed up to ${MAX_INPUT_CHANGES}, then counted`, async () => {
    const ws = workspace();
    await ws.run();
    for (let i = 0; i < MAX_INPUT_CHANGES + 7; i++) ws.write(`src/n${String(i).padStart(3, "0")}.txt`, "x");
    const t = texts(ws);
    expect(t.length).toBe(MAX_INPUT_CHANGES + 1);
    expect(t[0]).toBe("input file src/n000.txt was added");
    expect(t.at(-1)).toBe("… and 7 more input change(s)");
  });
});
