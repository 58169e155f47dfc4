// The deliberate fixes of kill_bezzangyi's receipts (docs/formats.md#fixes), each named for what it fixes.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { inspectReceipt } from "../../../src/io/receipts/audit.ts";
import { inventory, runtimeNames } from "../../../src/io/receipts/context.ts";
import { explainReceipt } from "../../../src/io/receipts/explain.ts";
import { normalizedDefinition } from "../../../src/io/receipts/ledger.ts";
import { currentVerifier, sourceDigest, type Verifier } from "../../../src/io/receipts/verifier.ts";
import { REPO, tempDir, writeTree } from "../../helpers/kbz.ts";
import { current, GATES, stale, workspace } from "./workspace.ts";

describe("fixes", () => {
  test("fixes kill bug: the verifier is kbz's version and build digest, not a hash of a scripts folder", async () => {
    const me = currentVerifier();
    expect(me).toEqual({
      name: "kbz",
      version: JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version,
      build: sourceDigest(path.join(REPO, "src")),
    });
    const ws = workspace();
    // An unrelated file beside the tool (the original hashed its whole scripts/ dir) changes nothing.
    ws.write("scripts/unrelated-helper.mjs", "export {};\n");
    await ws.run();
    expect(ws.audit()).toEqual(current());
    expect(ws.receipt()!.fingerprint!.verifier).toEqual(me);
    const newer: Verifier = { ...me, build: "0".repeat(64) };
    expect(inspectWith(ws.root, ws.env, newer)).toEqual(stale("changed-inputs-or-verifier"));
    const why = explainReceipt(ws.root, "GATES.md", { env: ws.env, verifier: newer });
    expect(why.changes.map((c) => c.kind)).toEqual(["verifier"]);
    expect(why.changes[0]!.text).toContain("the verifier changed");
    const upgraded: Verifier = { ...me, version: "9.9.9" };
    expect(inspectWith(ws.root, ws.env, upgraded)).toEqual(stale("changed-inputs-or-verifier"));
  });

  test("the source digest changes with any source byte and ignores nothing", () => {
    const dir = tempDir();
    writeTree(dir, { "a.ts": "export const a = 1;\n", "sub/b.md": "x" });
    const d1 = sourceDigest(dir);
    writeTree(dir, { "sub/b.md": "y" });
    expect(sourceDigest(dir)).not.toBe(d1);
    writeTree(dir, { "sub/b.md": "x" });
    expect(sourceDigest(dir)).toBe(d1);
  });

  test("fixes kill bug: the inventory is sorted by code unit, never by locale collation", () => {
    const dir = tempDir();
    const names = ["b.txt", "B.txt", "_x", "a-b", "a.b", "Z", "é", "10", "2"];
    for (const n of names) writeTree(dir, { [`in/${n}`]: n });
    const keys = [...inventory(dir, ["in"]).keys()];
    const byCodeUnit = ["in", ...names.map((n) => `in/${n}`).sort()];
    expect(keys).toEqual(byCodeUnit);
    const byLocale = [...byCodeUnit].sort((a, b) => a.localeCompare(b, "en"));
    expect(keys).not.toEqual(byLocale); // the original's order would differ here
  });

  test("fixes kill bug: the contract revision is read fence-aware, like the PLAN parser", async () => {
    const plan = (rev: number) => `# Plan\n\n\`\`\`md\nContract revision: 99\n\`\`\`\n\nContract revision: ${rev}\n`;
    const ws = workspace({ ".unlazy/api/PLAN.md": plan(3), ".unlazy/api/gates/leaf-1.md": GATES });
    const [r] = await ws.run({ ledgers: [".unlazy/api/gates/leaf-1.md"] });
    expect(r!.status).toBe("ACCEPTED");
    expect(ws.receipt(".unlazy/api/gates/leaf-1.md")!.fingerprint!.contractRevision).toBe("3");
    ws.write(".unlazy/api/PLAN.md", plan(4));
    expect(ws.audit(".unlazy/api/gates/leaf-1.md")).toEqual(
      stale("changed-inputs-or-verifier", ".unlazy/api/gates/leaf-1.md"),
    );
    const why = explainReceipt(ws.root, ".unlazy/api/gates/leaf-1.md", { env: ws.env });
    expect(why.changes.map((c) => c.text)).toEqual(["the contract revision in .unlazy/api/PLAN.md changed (3 → 4)"]);
    ws.write(".unlazy/api/PLAN.md", "# Plan\nContract revision: 4\nContract revision: 5\n");
    expect(() => ws.audit(".unlazy/api/gates/leaf-1.md")).toThrow("scope PLAN needs one contract revision");
  });

  test("fixes kill bug: [X] and [x] normalise alike in the definition", () => {
    const lower = "- [x] G1: t\n  CHECK: true\n  EXPECT: ok\n";
    expect(normalizedDefinition(lower.replace("[x]", "[X]"))).toBe(normalizedDefinition(lower));
    expect(normalizedDefinition(lower.replace("[x]", "[ ]"))).toBe(normalizedDefinition(lower));
  });

  test("fixes kill bug: binary inputs are hashed as bytes instead of refused", async () => {
    const bytes = new Uint8Array([0, 0xff, 0xfe, 0x80, 10, 0]);
    const ws = workspace({ "assets/logo.bin": bytes });
    const [r] = await ws.run({ inputs: ["assets", "src", "tests"] });
    expect(r!.status).toBe("ACCEPTED");
    expect(ws.audit()).toEqual(current());
    const changed = new Uint8Array(bytes);
    changed[1] = 0xfd; // both versions decode to U+FFFD: a text hash could not tell them apart
    ws.write("assets/logo.bin", changed);
    expect(ws.audit()).toEqual(stale("changed-inputs-or-verifier"));
    expect(explainReceipt(ws.root, "GATES.md", { env: ws.env }).changes.map((c) => c.path)).toEqual([
      "assets/logo.bin",
    ]);
  });

  test("PATH is in the runtime binding by default", async () => {
    const ws = workspace();
    await ws.run();
    expect(Object.keys(ws.receipt()!.fingerprint!.runtime.env)).toContain("PATH");
    expect(ws.receipt()!.policy).toEqual({ inputs: ["src", "tests"], env: [], closed: true });
    expect(inspectReceiptEnv(ws.root, { ...ws.env, PATH: "/bin:/usr/bin" })).toEqual(
      stale("changed-inputs-or-verifier"),
    );
    const why = explainReceipt(ws.root, "GATES.md", { env: { ...ws.env, PATH: "/bin:/usr/bin" } });
    expect(why.changes).toEqual([
      {
        kind: "environment",
        name: "PATH",
        text: "environment value PATH changed (kbz verify run --portable leaves PATH out)",
      },
    ]);
  });

  test("fixes kill limitation: --portable leaves PATH out of the binding and says so in the receipt", async () => {
    const ws = workspace();
    await ws.run({ portable: true });
    const receipt = ws.receipt()!;
    expect(receipt.policy).toEqual({ inputs: ["src", "tests"], env: [], closed: true, portable: true });
    expect(Object.keys(receipt.fingerprint!.runtime.env)).not.toContain("PATH");
    expect(runtimeNames(receipt.policy!)).toEqual(["ComSpec", "NODE_OPTIONS", "UNLAZY_SHELL"]);
    expect(inspectReceiptEnv(ws.root, { ...ws.env, PATH: "/somewhere/else:/usr/bin:/bin" })).toEqual(current());
    // A portable receipt is not the receipt a non-portable run asks for.
    expect((await ws.run())[0]!.status).toBe("ACCEPTED");
  });

  test("fixes kill bug: a ledger without EVIDENCE lines is accepted on its first run", async () => {
    const ws = workspace({ "GATES.md": "- [ ] G1: value\n  CHECK: sh tests/check.sh\n  EXPECT: REAL_OK\n" });
    const [r] = await ws.run();
    expect(r!.status).toBe("ACCEPTED");
    expect(ws.read("GATES.md")).toContain("EVIDENCE:");
    expect(ws.audit()).toEqual(current());
  });

  test("environment values never reach the store, only their digests", async () => {
    const ws = workspace();
    await ws.run({ env: ["API_TOKEN"], processEnv: { ...ws.env, API_TOKEN: "s3cret-value" } });
    expect(fs.readFileSync(path.join(ws.root, ".unlazy/verification-receipts.json"), "utf8")).not.toContain(
      "s3cret-value",
    );
  });
});

function inspectWith(root: string, env: Record<string, string>, verifier: Verifier) {
  return inspectReceipt(root, "GATES.md", { env, verifier });
}

function inspectReceiptEnv(root: string, env: Record<string, string>) {
  return inspectReceipt(root, "GATES.md", { env });
}
