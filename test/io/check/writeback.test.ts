import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  writeBack,
  WritebackError,
  type WritebackItem,
  type WritebackRequest,
  type WritebackStatus,
} from "../../../src/io/check/writeback.ts";
import { definitionDigest } from "../../../src/core/ledger/digest.ts";
import { parseLedger } from "../../../src/core/ledger/parse.ts";
import { oracleSignature, runtimeOracle } from "../../../src/core/run/oracle.ts";
import type { Gate } from "../../../src/core/ledger/model.ts";
import { tempDir } from "../../helpers/kbz.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const oracleOf = (g: Gate) =>
  runtimeOracle({
    check: g.check ?? "",
    expect: g.expect ?? "",
    cwd: "/w",
    shell: "/bin/sh",
    timeoutMs: 1000,
    path: "/bin",
  });
const EVIDENCE =
  "automatic-evidence=v1; definition-sha256=" +
  definitionDigest("echo ok", "ok", null) +
  "; exit=0; EXPECT=matched; output-sha256=" +
  "0".repeat(64) +
  "; output-bytes=3; shell=/bin/sh; cwd=/w; path=x/1 entries";

function setup(
  text: string,
  item: Partial<WritebackItem> = {},
  over: Partial<WritebackRequest> = {},
): { file: string; req: WritebackRequest } {
  const root = tempDir();
  const file = path.join(root, "GATES.md");
  fs.writeFileSync(file, text);
  const gate = parseLedger(text, "GATES").gates.find((g) => g.id === (item.gateId ?? "G1"))!;
  const req: WritebackRequest = {
    root,
    file,
    constrained: true,
    oracleFor: oracleOf,
    reverify: false,
    items: [
      {
        gateId: gate.id,
        digest: definitionDigest(gate.check!, gate.expect!, gate.cwd),
        signature: oracleSignature(oracleOf(gate)),
        ok: true,
        evidence: EVIDENCE,
        startState: "unmet",
        ...item,
      },
    ],
    ...over,
  };
  return { file, req };
}

/** The status of a single-result writeback. */
const one = async (req: WritebackRequest): Promise<WritebackStatus | undefined> => (await writeBack(req))[0];

const LEDGER =
  "# G\n\n- [ ] G1: one\n  CHECK: echo ok\n  EXPECT: ok\n  EVIDENCE: pending\n\n- [ ] G2: two\n  EVIDENCE: pending\n";

describe("writeback of one result", () => {
  test("a pass checks the box and replaces the evidence in place", async () => {
    const { file, req } = setup(LEDGER);
    expect(await one(req)).toBe("written");
    expect(fs.readFileSync(file, "utf8")).toBe(
      LEDGER.replace("- [ ] G1", "- [x] G1").replace(
        "  EVIDENCE: pending\n\n- [ ] G2",
        `  EVIDENCE: ${EVIDENCE}\n\n- [ ] G2`,
      ),
    );
  });

  test("a pass inserts a missing EVIDENCE line right after the attribute run", async () => {
    const text = "- [ ] G1: one\n  CHECK: echo ok\n  EXPECT: ok\nprose\n";
    const { file, req } = setup(text);
    await one(req);
    expect(fs.readFileSync(file, "utf8")).toBe(
      `- [x] G1: one\n  CHECK: echo ok\n  EXPECT: ok\n  EVIDENCE: ${EVIDENCE}\nprose\n`,
    );
  });

  test("CRLF line endings are kept, with no bare LF added", async () => {
    const { file, req } = setup(LEDGER.replace(/\n/g, "\r\n"));
    await one(req);
    const out = fs.readFileSync(file, "utf8");
    expect(out).toContain("- [x] G1: one\r\n");
    expect(out.replace(/\r\n/g, "")).not.toContain("\n");
  });

  test("an ordinary unchecked gate that fails leaves the file untouched", async () => {
    const { file, req } = setup(LEDGER, { ok: false, evidence: null });
    const before = fs.statSync(file).mtimeMs;
    expect(await one(req)).toBe("unchanged");
    expect(fs.readFileSync(file, "utf8")).toBe(LEDGER);
    expect(fs.statSync(file).mtimeMs).toBe(before);
  });

  test("a failure of a stale, re-verified or checked gate demotes it to [ ] and pending", async () => {
    const checked = LEDGER.replace("- [ ] G1", "- [x] G1").replace(
      "  EVIDENCE: pending\n\n- [ ] G2",
      `  EVIDENCE: ${EVIDENCE}\n\n- [ ] G2`,
    );
    const cases: [Partial<WritebackItem>, boolean][] = [
      [{ startState: "stale-unmet" }, false],
      [{ startState: "met" }, true],
      [{ startState: "unmet" }, false],
    ];
    for (const [item, reverify] of cases) {
      const { file, req } = setup(checked, { ok: false, evidence: null, ...item }, { reverify });
      expect(await one(req)).toBe("written");
      expect(fs.readFileSync(file, "utf8")).toBe(LEDGER);
    }
  });

  test("STALE: an EXPECT edited while the check ran is not overwritten", async () => {
    const { file, req } = setup(LEDGER);
    const edited = LEDGER.replace("EXPECT: ok", "EXPECT: ok2");
    fs.writeFileSync(file, edited);
    expect(await one(req)).toBe("stale");
    expect(fs.readFileSync(file, "utf8")).toBe(edited);
  });

  test("STALE: a gate that vanished, or whose resolved oracle changed, is not written", async () => {
    const { file, req } = setup(LEDGER);
    fs.writeFileSync(file, LEDGER.replace("G1:", "G9:"));
    expect(await one(req)).toBe("stale");
    const second = setup(LEDGER, {}, { oracleFor: (g) => ({ ...oracleOf(g), timeoutMs: 2000 }) });
    expect(await one(second.req)).toBe("stale");
  });

  test("a gate abandoned meanwhile is skipped", async () => {
    const { file, req } = setup(LEDGER);
    const abandoned = LEDGER + "ABANDON: G1 no longer needed\n";
    fs.writeFileSync(file, abandoned);
    expect(await one(req)).toBe("abandoned");
    expect(fs.readFileSync(file, "utf8")).toBe(abandoned);
  });

  test("an edit to another gate made before the lock is taken survives", async () => {
    const { file, req } = setup(LEDGER);
    fs.writeFileSync(
      file,
      LEDGER.replace("- [ ] G2: two\n  EVIDENCE: pending", "- [x] G2: two\n  EVIDENCE: reviewed by Ann"),
    );
    await one(req);
    const out = fs.readFileSync(file, "utf8");
    expect(out).toContain("- [x] G2: two\n  EVIDENCE: reviewed by Ann");
    expect(out).toContain("- [x] G1: one");
  });

  test("a ledger that became invalid is reported, not written", async () => {
    const { file, req } = setup(LEDGER);
    fs.writeFileSync(file, "no gates here\n");
    const e = await one(req).then(
      () => null,
      (e: unknown) => e,
    );
    expect(e).toBeInstanceOf(WritebackError);
    expect((e as WritebackError).message).toBe("fresh ledger became invalid: ledger contains zero live gates");
    expect([(e as WritebackError).file, (e as WritebackError).line]).toEqual([req.file, 1]);
    expect(fs.readFileSync(file, "utf8")).toBe("no gates here\n");
  });

  test("a ledger replaced by a symlink is refused", async () => {
    const { file, req } = setup(LEDGER);
    const elsewhere = path.join(tempDir(), "x.md");
    fs.writeFileSync(elsewhere, LEDGER);
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    await expect(one(req)).rejects.toThrow(WritebackError);
    expect(fs.readFileSync(elsewhere, "utf8")).toBe(LEDGER);
  });

  test("a ledger's results share one write; a stale result among them is skipped, the others land", async () => {
    const text = LEDGER + "\n- [ ] G3: three\n  CHECK: echo three\n  EXPECT: three\n";
    const { file, req } = setup(text);
    const g3 = parseLedger(text, "GATES").gates.find((g) => g.id === "G3")!;
    const ev3 = EVIDENCE.replace(
      definitionDigest("echo ok", "ok", null),
      definitionDigest("echo three", "three", null),
    );
    req.items.push({
      gateId: "G3",
      digest: definitionDigest("echo three", "three", null),
      signature: oracleSignature(oracleOf(g3)),
      ok: true,
      evidence: ev3,
      startState: "unmet",
    });
    req.items.unshift({ ...req.items[0]!, gateId: "G2", digest: "0".repeat(64) });
    expect(await writeBack(req)).toEqual(["stale", "written", "written"]);
    const out = fs.readFileSync(file, "utf8");
    expect(out).toContain("- [x] G1: one");
    expect(out).toContain(`- [x] G3: three\n  CHECK: echo three\n  EXPECT: three\n  EVIDENCE: ${ev3}\n`);
    expect(out).toContain("- [ ] G2: two");
  });
});
