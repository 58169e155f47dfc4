// io/oracle/identity.ts: when a recorded file identity may stand for its digest. The binary tests
// (test/cli/oracle-digest-cache.test.ts) try the agent's tricks; these pin the module's rules.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseLedger } from "../../../src/core/ledger/parse.ts";
import { fileDigest } from "../../../src/io/oracle/digest.ts";
import {
  currentIdentity,
  identitiesFor,
  identityOf,
  namesOnlyFiles,
  RACY_MS,
  filesUnchanged,
} from "../../../src/io/oracle/identity.ts";
import { tempDir } from "../../helpers/tmp.ts";

function gate(lines: string[]) {
  const l = parseLedger(["- [ ] G1: it holds", ...lines, ""].join("\n"), "GATES");
  expect(l.errors).toEqual([]);
  return l.gates[0]!;
}

describe("identities", () => {
  test("a file changed just now records no identity; one changed over RACY_MS ago does", () => {
    const dir = tempDir();
    const fresh = path.join(dir, "fresh.sh");
    fs.writeFileSync(fresh, "echo fresh\n");
    const d = fileDigest(fresh);
    expect("sha256" in d).toBe(true);
    expect(identitiesFor({ "fresh.sh": (d as { sha256: string }).sha256 }, (k) => path.join(dir, k))).toEqual({});

    const old = path.join(dir, "old.sh");
    fs.writeFileSync(old, "echo old\n");
    Bun.sleepSync(RACY_MS + 200);
    const o = fileDigest(old) as { sha256: string };
    const ids = identitiesFor({ "old.sh": o.sha256 }, (k) => path.join(dir, k));
    expect(ids["old.sh"]).toBe(identityOf(fs.statSync(old, { bigint: true })));
    // Only for the digest it was read with: another digest for the same file gets nothing.
    expect(identitiesFor({ "old.sh": "0".repeat(64) }, (k) => path.join(dir, k))).toEqual({});
  });

  test("the identity includes ctime: touch -d restoring mtime and size still changes it", () => {
    const dir = tempDir();
    const f = path.join(dir, "c.mjs");
    fs.writeFileSync(f, "console.log(1)\n");
    const before = currentIdentity(f);
    const st = fs.statSync(f, { bigint: true });
    Bun.sleepSync(20);
    fs.writeFileSync(f, "console.log(2)\n");
    const ns = st.mtimeNs;
    expect(
      spawnSync("touch", ["-m", "-d", `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`, f])
        .status,
    ).toBe(0);
    expect(fs.statSync(f, { bigint: true }).mtimeNs).toBe(st.mtimeNs);
    expect(currentIdentity(f)).not.toBe(before);
    expect(currentIdentity(path.join(dir, "missing"))).toBeNull();
    expect(currentIdentity(dir)).toBeNull(); // a directory has no digest to stand for
  });
});

describe("namesOnlyFiles", () => {
  test("a CHECK that runs named files, and nothing else, qualifies", () => {
    expect(namesOnlyFiles(gate(["  CHECK: node check.mjs", "  EXPECT: OK"]))).toBe(true);
    expect(namesOnlyFiles(gate(["  CHECK: cd sub && sh a.sh < in.txt", "  EXPECT: OK"]))).toBe(true);
  });

  test("a package script, ORACLE:, ~ or no CHECK does not: their files depend on more than the CHECK's text", () => {
    expect(namesOnlyFiles(gate(["  CHECK: npm test", "  EXPECT: OK"]))).toBe(false);
    expect(namesOnlyFiles(gate(["  CHECK: node check.mjs", "  EXPECT: OK", "  ORACLE: test/**"]))).toBe(false);
    expect(namesOnlyFiles(gate(["  CHECK: node ~/check.mjs", "  EXPECT: OK"]))).toBe(false);
    expect(namesOnlyFiles(gate([]))).toBe(false);
  });
});

describe("filesUnchanged", () => {
  const g = gate(["  CHECK: node check.mjs", "  EXPECT: OK"]);
  const depends = { "oracle:check.mjs": "a".repeat(64) };
  const detail = { signature: "s", stat: { "check.mjs": "1:2:3:4:5" }, filesFrom: "/r" };
  const now = (id: string | null) => () => id;

  test("the recorded files stand while the directory and every identity hold", () => {
    expect(filesUnchanged(detail, depends, g, "/r", "/r", now("1:2:3:4:5"))).toBe(true);
  });

  test("anything else is false: another identity, another directory, no filesFrom, a missing identity, an ORACLE: now", () => {
    expect(filesUnchanged(detail, depends, g, "/r", "/r", now("1:2:3:4:6"))).toBe(false);
    expect(filesUnchanged(detail, depends, g, "/r/sub", "/r", now("1:2:3:4:5"))).toBe(false);
    expect(filesUnchanged({ ...detail, filesFrom: undefined }, depends, g, "/r", "/r", now("1:2:3:4:5"))).toBe(false);
    expect(filesUnchanged({ ...detail, stat: {} }, depends, g, "/r", "/r", now("1:2:3:4:5"))).toBe(false);
    expect(filesUnchanged(detail, depends, g, "/r", "/r", now(null))).toBe(false);
    const withOracle = gate(["  CHECK: node check.mjs", "  EXPECT: OK", "  ORACLE: check.mjs"]);
    expect(filesUnchanged(detail, depends, withOracle, "/r", "/r", now("1:2:3:4:5"))).toBe(false);
  });
});
