// docs/formats.md#scheduling verification-tests, behaviour by behaviour, through the in-process runner.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { VerificationError } from "../../../src/core/receipts/errors.ts";
import { current, GATES, MANUAL_GATE, stale, workspace } from "./workspace.ts";

describe("verify run and audit (kill §5.4)", () => {
  test("1: the first closed run executes once; a second run reuses the receipt and audit is current", async () => {
    const ws = workspace();
    expect(await ws.run()).toEqual([{ status: "ACCEPTED", ledger: "GATES.md", executed: 1, reusable: true }]);
    expect(await ws.run()).toEqual([{ status: "CURRENT_EVIDENCE", ledger: "GATES.md", executed: 0 }]);
    expect(ws.audit()).toEqual(current());
    expect(ws.counter()).toBe(1);
  });

  test("2: a source change makes audit stale; a failing re-run leaves no reusable success; restoring re-executes", async () => {
    const ws = workspace();
    await ws.run();
    ws.write("src/value.txt", "bad\n");
    expect(ws.audit()).toEqual(stale("changed-inputs-or-verifier"));
    const [failed] = await ws.run();
    expect(failed).toMatchObject({ status: "REVIEW_OR_REPAIR", reason: "check-not-accepted", exit: 1 });
    expect(ws.receipt()!.status).toBe("rejected");
    expect(ws.audit()).toEqual(stale("unfinished-verification"));
    ws.write("src/value.txt", "good\n");
    expect((await ws.run())[0]!.status).toBe("ACCEPTED");
    expect(ws.counter()).toBe(3);
    expect(ws.audit()).toEqual(current());
  });

  test("3: modifying the called test script invalidates the receipt", async () => {
    const ws = workspace();
    await ws.run();
    ws.write("tests/check.sh", ws.read("tests/check.sh") + "# tweak\n");
    expect(ws.audit()).toEqual(stale("changed-inputs-or-verifier"));
  });

  test("4: adding a file inside a declared input directory invalidates the receipt", async () => {
    const ws = workspace();
    await ws.run();
    ws.write("src/extra.txt", "");
    expect(ws.audit()).toEqual(stale("changed-inputs-or-verifier"));
  });

  test("5: changing a gate title invalidates the receipt although the box stays checked", async () => {
    const ws = workspace();
    await ws.run();
    const text = ws.read("GATES.md");
    expect(text).toContain("- [x] G1:");
    ws.write("GATES.md", text.replace("source matches expected value", "source matches the expected value"));
    // Still met (evidence binds CHECK/EXPECT/CWD only) but no longer the accepted ledger.
    expect(ws.audit()).toEqual(stale("changed-ledger-or-evidence"));
  });

  test("6: a manual gate needs --reviewed; later input changes invalidate it; re-acceptance without --reviewed fails", async () => {
    const ws = workspace({ "GATES.md": GATES + MANUAL_GATE });
    expect(await ws.run()).toEqual([{ status: "MANUAL_REVIEW_REQUIRED", ledger: "GATES.md" }]);
    expect(ws.receipt()).toBeNull();
    ws.write(
      "GATES.md",
      ws
        .read("GATES.md")
        .replace(
          "- [ ] M1: a person read the output\n  EVIDENCE: pending",
          "- [x] M1: a person read the output\n  EVIDENCE: read by Ana, all good",
        ),
    );
    expect(await ws.run()).toEqual([{ status: "MANUAL_REVIEW_REQUIRED", ledger: "GATES.md" }]);
    expect(ws.counter()).toBe(0);
    expect((await ws.run({ reviewed: true }))[0]!.status).toBe("ACCEPTED");
    expect(ws.audit()).toEqual(current());
    ws.write("src/value.txt", "good\n\n");
    expect(ws.audit()).toEqual(stale("changed-inputs-or-verifier"));
    expect(await ws.run()).toEqual([{ status: "MANUAL_REVIEW_REQUIRED", ledger: "GATES.md" }]);
  });

  test("7: without --closed every run executes and audit refuses reuse", async () => {
    const ws = workspace();
    expect(await ws.run({ closed: false })).toEqual([
      { status: "ACCEPTED", ledger: "GATES.md", executed: 1, reusable: false },
    ]);
    expect((await ws.run({ closed: false }))[0]!.status).toBe("ACCEPTED");
    expect(ws.counter()).toBe(2);
    expect(ws.audit()).toEqual(stale("fresh-observation-required"));
  });

  test("8: a change in a declared environment variable invalidates the receipt", async () => {
    const ws = workspace();
    const processEnv = { ...ws.env, API_MODE: "live" };
    await ws.run({ env: ["API_MODE"], processEnv });
    expect(ws.audit()).toEqual(stale("changed-inputs-or-verifier")); // ws.env has no API_MODE
    expect((await ws.run({ env: ["API_MODE"], processEnv }))[0]!.status).toBe("CURRENT_EVIDENCE");
    expect((await ws.run({ env: ["API_MODE"], processEnv: { ...processEnv, API_MODE: "mock" } }))[0]!.status).toBe(
      "ACCEPTED",
    );
    expect(ws.counter()).toBe(2);
  });

  test("9: without --approve and without a stored approval the oracle is not executed", async () => {
    const ws = workspace();
    const [r] = await ws.run({ approve: false });
    expect(r).toMatchObject({ status: "REVIEW_OR_REPAIR", reason: "check-not-accepted", exit: 1 });
    expect(ws.counter()).toBe(0);
  });

  test("10: a check that mutates its own input during a passing run gives no reusable evidence", async () => {
    const ws = workspace({ "tests/check.sh": `echo touched >> src/log.txt\necho REAL_OK\n` });
    const [r] = await ws.run();
    expect(r).toMatchObject({ status: "REVIEW_OR_REPAIR", reason: "inputs-changed-during-check", exit: 0 });
    expect(ws.receipt()!.status).toBe("rejected");
    expect(ws.audit()).toEqual(stale("unfinished-verification"));
  });

  test("11: a receipt set to pending (a simulated crash) fails audit, and the next run executes", async () => {
    const ws = workspace();
    await ws.run();
    const file = path.join(ws.root, ".unlazy/verification-receipts.json");
    const store = JSON.parse(fs.readFileSync(file, "utf8"));
    store.receipts["GATES.md"].status = "pending";
    fs.writeFileSync(file, JSON.stringify(store));
    expect(ws.audit()).toEqual(stale("unfinished-verification"));
    expect((await ws.run())[0]!.status).toBe("ACCEPTED");
    expect(ws.counter()).toBe(2);
  });

  test("12: an input escaping the root, or equal to the ledger, is invalid", async () => {
    const ws = workspace();
    await expect(ws.run({ inputs: ["../x"] })).rejects.toThrow(new VerificationError("input path escapes root"));
    await expect(ws.run({ inputs: ["GATES.md"] })).rejects.toThrow(
      new VerificationError("input must not contain its own ledger"),
    );
    expect(ws.receipt()).toBeNull();
    expect(ws.counter()).toBe(0);
  });

  test("13: an abandoned gate can never be accepted", async () => {
    const ws = workspace({ "GATES.md": GATES + "\nABANDON: G1 cannot be built here\n" });
    const [r] = await ws.run();
    expect(r).toMatchObject({ status: "REVIEW_OR_REPAIR", reason: "check-not-accepted" });
    expect(ws.audit()).toEqual(stale("unfinished-verification"));
  });

  test("a check that changes the ledger's definition or the scope's contract revision is not accepted", async () => {
    const scoped = ".unlazy/api/gates/leaf-1.md";
    const bump = `sed -i 's/Contract revision: 1/Contract revision: 2/' .unlazy/api/PLAN.md\necho REAL_OK\n`;
    const ws = workspace({
      ".unlazy/api/PLAN.md": "# Plan\nContract revision: 1\n",
      [scoped]: GATES,
      "tests/check.sh": bump,
    });
    expect((await ws.run({ ledgers: [scoped] }))[0]).toMatchObject({
      status: "REVIEW_OR_REPAIR",
      reason: "inputs-changed-during-check",
      exit: 0,
    });
    const retitle = `sed -i 's/expected value/expected value (edited by the check)/' GATES.md\necho REAL_OK\n`;
    const ws2 = workspace({ "tests/check.sh": retitle });
    expect((await ws2.run())[0]).toMatchObject({ status: "REVIEW_OR_REPAIR", reason: "inputs-changed-during-check" });
  });

  test("the old receipt is withdrawn (pending) before the check runs", async () => {
    const ws = workspace({ "tests/check.sh": `cp .unlazy/verification-receipts.json seen.json\necho REAL_OK\n` });
    await ws.run();
    expect(ws.receipt()!.status).toBe("accepted");
    expect(JSON.parse(ws.read("seen.json")).receipts["GATES.md"]).toEqual({
      status: "pending",
      policy: { inputs: ["src", "tests"], env: [], closed: true },
    });
  });

  test("a run with a different policy does not reuse the receipt (changed-policy) and re-executes", async () => {
    const ws = workspace();
    await ws.run();
    expect(ws.audit("GATES.md", { inputs: ["src"], env: [], closed: true })).toEqual(stale("changed-policy"));
    expect((await ws.run({ inputs: ["src", "tests", "README.md"] }))[0]!.status).toBe("ACCEPTED");
    expect(ws.counter()).toBe(2);
  });

  test("ledgers run in argument order, each with its own receipt", async () => {
    const ws = workspace({ "b.md": GATES.replace("G1", "B1") });
    const results = await ws.run({ ledgers: ["b.md", "GATES.md"] });
    expect(results.map((r) => [r.status, r.ledger])).toEqual([
      ["ACCEPTED", "b.md"],
      ["ACCEPTED", "GATES.md"],
    ]);
    expect(ws.audit("b.md")).toEqual(current("b.md"));
  });
});
