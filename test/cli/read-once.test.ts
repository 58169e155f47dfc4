// One read per verb (docs/ARCHITECTURE.md): `kbz next` and `kbz status` open each ledger, PLAN.md,
// ACCESS.json and dispatch.json once, counted with strace on the binary. `kbz next` once re-read
// the whole scope for its cascade and sign-first lines after the consistent read (a second
// snapshot), so an advice with attention opened every ledger and dispatch.json twice.
import { needs } from "../helpers/needs.ts";
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { emptyDispatch, serializeDispatch } from "../../src/core/dispatch/waves.ts";
import { planText, type TaskSpec } from "../core/schedule/build.ts";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";

const S = ".unlazy/api";
const hasStrace = needs("strace");

function scope(tasks: TaskSpec[], extra: Record<string, string> = {}): string {
  const dir = tempDir();
  const leaves = Object.fromEntries(
    tasks.map((t) => [t.id, { complete: true, reads: ["contracts/**"], resourceReads: [], resourceWrites: [] }]),
  );
  const files: Record<string, string> = {
    [`${S}/PLAN.md`]: planText(tasks),
    [`${S}/ACCESS.json`]: JSON.stringify({ schema: 1, contractRevision: 1, leaves }),
    [`${S}/dispatch.json`]: serializeDispatch(emptyDispatch()),
    ...extra,
  };
  for (const t of tasks) {
    const done = t.state === "VERIFIED";
    files[`${S}/gates/leaf-${t.id}.md`] =
      `OWNS: src/${t.id}/**\n\n- [${done ? "x" : " "}] G1: leaf ${t.id}\n  EVIDENCE: ${done ? "reviewed by a person" : "pending"}\n`;
  }
  writeTree(dir, files);
  return dir;
}

/** How many times the binary opened each file under `.unlazy/` for reading (path lookups and folder listings left out). */
function opens(dir: string, args: string[]): Map<string, number> {
  const log = path.join(tempDir(), "strace.txt");
  const r = spawnSync("strace", ["-f", "-e", "trace=open,openat", "-o", log, BIN, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, CLAUDECODE: "1" },
  });
  expect(r.status === 0 || r.status === 1).toBe(true);
  const counts = new Map<string, number>();
  for (const line of fs.readFileSync(log, "utf8").split("\n")) {
    if (/ENOENT|O_PATH|O_DIRECTORY/.test(line)) continue;
    const m = /open(?:at)?\([^"]*"([^"]+)"/.exec(line);
    if (!m || !m[1]!.includes(`${path.sep}.unlazy${path.sep}`)) continue;
    const rel = path.relative(dir, m[1]!);
    counts.set(rel, (counts.get(rel) ?? 0) + 1);
  }
  return counts;
}

function expectOnce(counts: Map<string, number>, files: string[]): void {
  expect(Object.fromEntries(files.map((f) => [f, counts.get(f) ?? 0]))).toEqual(
    Object.fromEntries(files.map((f) => [f, 1])),
  );
}

describe.skipIf(!hasStrace)("each file read once (strace on the binary)", () => {
  const scopeFiles = [`${S}/PLAN.md`, `${S}/ACCESS.json`, `${S}/dispatch.json`];

  test("kbz next with a lease held opens PLAN.md, ACCESS.json, dispatch.json and each leaf ledger once", () => {
    const dir = scope([{ id: "1" }, { id: "2" }, { id: "3", needs: ["1"] }]);
    expect(kbz(["scope", "claim", "--scope", "api", "--leaf", "1"], { cwd: dir }).code).toBe(0);
    const counts = opens(dir, ["next", "--scope", "api", "--json"]);
    expectOnce(counts, [...scopeFiles, `${S}/gates/leaf-1.md`, `${S}/gates/leaf-2.md`, `${S}/gates/leaf-3.md`]);
  });

  test("kbz next whose advice has attention and a root to verify (cascades, sign first) still reads each file once", () => {
    const dir = scope(
      [
        { id: "1", state: "VERIFIED" },
        { id: "2", state: "VERIFIED" },
      ],
      {
        [`${S}/GATES.md`]: "# api\n\n- [ ] R1: a person checks the whole\n",
      },
    );
    const counts = opens(dir, ["next", "--scope", "api", "--json"]);
    expectOnce(counts, [...scopeFiles, `${S}/GATES.md`, `${S}/gates/leaf-1.md`, `${S}/gates/leaf-2.md`]);
  });

  test("kbz status --scope opens dispatch.json and each ledger once", () => {
    const dir = scope([{ id: "1", state: "VERIFIED" }, { id: "2" }], {
      [`${S}/GATES.md`]: "# api\n\n- [ ] R1: a person checks the whole\n",
    });
    const counts = opens(dir, ["status", "--scope", "api", "--json"]);
    expectOnce(counts, [`${S}/dispatch.json`, `${S}/GATES.md`, `${S}/gates/leaf-1.md`, `${S}/gates/leaf-2.md`]);
  });
});
