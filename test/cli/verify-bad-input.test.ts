// kbz verify on bad input (issue 8): each case gives the spec's error or status, exit 2 for
// errors, and changes nothing — the receipt store and every other file stay byte-identical.
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "../helpers/approvals.ts";
import { hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { CHECK_SCRIPT, GATES } from "../io/receipts/workspace.ts";

const STORE = ".unlazy/verification-receipts.json";

/** A workspace holding an accepted receipt for gates/other.md that must survive every case (verify run runs it from the root, as verify-once). */
function accepted() {
  const root = tempDir("kbz-verify-bad-");
  writeTree(root, {
    "src/value.txt": "good\n",
    "tests/check.sh": CHECK_SCRIPT,
    "GATES.md": GATES,
    "gates/other.md": GATES.replace("G1", "O1"),
  });
  const env = agentEnv();
  const run = (...args: string[]) => kbz(["verify", ...args], { cwd: root, env });
  expect(run("run", "--inputs", "src,tests", "--closed", "--approve", "gates/other.md").code).toBe(0);
  return { root, env, run };
}

describe("bad input leaves everything unchanged", () => {
  let w: ReturnType<typeof accepted>;
  beforeAll(() => {
    w = accepted();
  });

  const refuse = (
    inputs: string,
    message: string,
    ledger = "GATES.md",
    setup?: (root: string) => void,
    extra: string[] = [],
  ) => {
    if (setup) setup(w.root);
    const before = hashTree(w.root);
    const r = w.run("run", "--inputs", inputs, "--closed", "--approve", ...extra, ledger);
    expect({ inputs, code: r.code, line: r.stderr.split("\n")[0], stdout: r.stdout }).toEqual({
      inputs,
      code: 2,
      line: message,
      stdout: "",
    });
    expect(hashTree(w.root)).toBe(before);
    // Large fixtures go once proven untouched, so later cases hash a small tree.
    if (["many", "huge", "big.bin"].includes(inputs)) fs.rmSync(path.join(w.root, inputs), { recursive: true });
  };

  test("inputs that include the ledger or verification metadata", () => {
    refuse("src,.unlazy", "kbz: declare artifact inputs separately from verification metadata: .unlazy");
    refuse(STORE, `kbz: declare artifact inputs separately from verification metadata: ${STORE}`);
    refuse(".unlazy/locks", "kbz: declare artifact inputs separately from verification metadata: .unlazy/locks");
    refuse(".", "kbz: declare artifact inputs separately from verification metadata: .");
    refuse("src,GATES.md", "kbz: input must not contain its own ledger: GATES.md");
    refuse("gates", "kbz: input must not contain its own ledger: gates", "gates/other.md");
  });

  test("absolute paths, .., globs and empty names", () => {
    refuse("/etc/hostname", "kbz: input path escapes root: /etc/hostname");
    refuse("src/../..", "kbz: input path escapes root: src/../..");
    refuse("src/*.txt", 'kbz: literal relative input paths required: "src/*.txt"');
    refuse("src,,tests", 'kbz: literal relative input paths required: ""');
  });

  test("links, hard links and FIFOs", () => {
    refuse("linked", "kbz: linked input is unsupported: linked", "GATES.md", (root) =>
      fs.symlinkSync(path.join(root, "src"), path.join(root, "linked")),
    );
    refuse("lk", "kbz: linked snapshot input is unsupported: lk/to-value", "GATES.md", (root) => {
      fs.mkdirSync(path.join(root, "lk"));
      fs.symlinkSync(path.join(root, "src/value.txt"), path.join(root, "lk/to-value"));
    });
    refuse("hl", "kbz: snapshot inputs must be regular single-link files: hl/one", "GATES.md", (root) => {
      writeTree(root, { "hl/one": "1" });
      fs.linkSync(path.join(root, "hl/one"), path.join(root, "hl/twin"));
    });
    refuse("ff", "kbz: snapshot inputs must be regular single-link files: ff/pipe", "GATES.md", (root) => {
      fs.mkdirSync(path.join(root, "ff"));
      expect(spawnSync("mkfifo", [path.join(root, "ff/pipe")]).status).toBe(0);
    });
  }, 60_000);

  test("more than 10,000 files, more than 64 MiB, one file over 8 MiB", () => {
    refuse("many", "kbz: snapshot exceeds 10000 files", "GATES.md", (root) => {
      fs.mkdirSync(path.join(root, "many"));
      for (let i = 0; i <= 10_000; i++) fs.writeFileSync(path.join(root, "many", `f${i}`), "");
    });
    refuse("huge", "kbz: snapshot exceeds 64 MiB", "GATES.md", (root) => {
      fs.mkdirSync(path.join(root, "huge"));
      for (let i = 0; i < 9; i++) {
        fs.writeFileSync(path.join(root, "huge", `part${i}`), "");
        fs.truncateSync(path.join(root, "huge", `part${i}`), 8 * 1024 * 1024); // sparse
      }
    });
    refuse("big.bin", "kbz: snapshot input exceeds 8 MiB: big.bin", "GATES.md", (root) => {
      fs.writeFileSync(path.join(root, "big.bin"), "");
      fs.truncateSync(path.join(root, "big.bin"), 8 * 1024 * 1024 + 1);
    });
  }, 120_000);

  test("an invalid environment name", () => {
    refuse("src", "kbz: invalid environment input: 1BAD", "GATES.md", undefined, ["--env", "1BAD"]);
  });

  test("ledgers that are missing, malformed, linked or outside the root", () => {
    refuse("src", "nope.md:1: malformed or empty gate ledger (no such file)", "nope.md");
    refuse("src", "empty.md:1: malformed or empty gate ledger (ledger contains zero live gates)", "empty.md", (root) =>
      writeTree(root, { "empty.md": "# nothing\n" }),
    );
    refuse(
      "src",
      "bad.md:1: malformed or empty gate ledger (gate G1: runnable gates require both non-blank CHECK and EXPECT)",
      "bad.md",
      (root) => writeTree(root, { "bad.md": "- [ ] G1: x\n  CHECK: true\n" }),
    );
    refuse("src", "kbz: linked input is unsupported: alias.md", "alias.md", (root) =>
      fs.symlinkSync(path.join(root, "GATES.md"), path.join(root, "alias.md")),
    );
    refuse("src", "kbz: input path escapes root: ../GATES.md", "../GATES.md");
  }, 60_000);
});

describe("a damaged receipt store is reported, never overwritten", () => {
  const cases: [string, (root: string) => void][] = [
    ["corrupt", (root) => writeTree(root, { [STORE]: "{not json" })],
    [
      "truncated",
      (root) => fs.writeFileSync(path.join(root, STORE), fs.readFileSync(path.join(root, STORE), "utf8").slice(0, 120)),
    ],
    [
      "a symlink",
      (root) => {
        fs.renameSync(path.join(root, STORE), path.join(root, "real-store.json"));
        fs.symlinkSync(path.join(root, "real-store.json"), path.join(root, STORE));
      },
    ],
  ];
  for (const [what, damage] of cases) {
    test(`${what} store: run, audit and explain exit 2 naming the store`, () => {
      const w = accepted();
      damage(w.root);
      const before = hashTree(w.root);
      for (const args of [
        ["run", "--inputs", "src,tests", "--closed", "--approve", "GATES.md"],
        ["audit", "gates/other.md"],
        ["explain", "gates/other.md"],
      ]) {
        const r = w.run(...args);
        expect({ args, code: r.code, line: r.stderr.split("\n")[0]!.replace(/ \(.*\)$/, "") }).toEqual({
          args,
          code: 2,
          line: `${STORE}:1: invalid verification registry`,
        });
      }
      const j = JSON.parse(w.run("audit", "--json", "gates/other.md").stdout);
      expect(j).toMatchObject({
        schema: 1,
        status: "INVALID",
        exit: 2,
        reason: "invalid verification registry",
        file: STORE,
      });
      expect(hashTree(w.root)).toBe(before);
      expect(fs.existsSync(path.join(w.root, "counter"))).toBe(true); // only the setup run executed
      expect(fs.readFileSync(path.join(w.root, "counter"), "utf8").trim()).toBe("1");
    });
  }
});

describe("statuses that are not errors", () => {
  test("a ledger renamed after acceptance has no receipt; explain says where it went", () => {
    const w = accepted();
    fs.renameSync(path.join(w.root, "gates/other.md"), path.join(w.root, "gates/renamed.md"));
    const before = hashTree(w.root);
    const r = w.run("audit", "gates/renamed.md");
    expect([r.code, r.stdout.split("\n")[0]]).toEqual([
      1,
      "STALE   gates/renamed.md: missing-receipt (kbz verify explain gates/renamed.md says why)",
    ]);
    expect(w.run("explain", "gates/renamed.md").stdout).toContain(
      "it was accepted as gates/other.md, which no longer exists",
    );
    expect(hashTree(w.root)).toBe(before);
  });

  test("a writer changing an input while the check runs: not accepted, inputs-changed-during-check, other receipts kept", () => {
    const w = accepted();
    writeTree(w.root, { "tests/check.sh": "echo more >> src/value.txt\necho REAL_OK\n" });
    const r = w.run("run", "--inputs", "src,tests", "--closed", "--approve", "--json", "GATES.md");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).results[0]).toMatchObject({
      status: "REVIEW_OR_REPAIR",
      ledger: "GATES.md",
      exit: 0,
      reason: "inputs-changed-during-check",
    });
    const store = JSON.parse(fs.readFileSync(path.join(w.root, STORE), "utf8"));
    expect(store.receipts["GATES.md"]).toEqual({
      status: "rejected",
      policy: { inputs: ["src", "tests"], env: [], closed: true },
    });
    expect(store.receipts["gates/other.md"].status).toBe("accepted");
  });
});
