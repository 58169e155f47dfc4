// The cost budgets of issues 26, 27 and 28: the new binary (dist/kbz) against an old one, in ONE
// interleaved run per case (old, new, old, new, …), so a machine whose speed drifts (it is shared)
// moves both sides alike. For each case it prints the CPU seconds (user + system of the finished
// process, the kernel's own accounting) and wall seconds of each side as min / median / max, the
// median of the per-pair new/old ratios, and the load average before and after. Prints figures;
// asserts nothing. Run after `bun build.ts`:
//
//   bun bench/cost.ts [--old BIN] [--new BIN] [--runs N] [CASE …]
//   (old default /work/tools/kbz-old-33d2fc2, new default dist/kbz)
//
// Cases (all by default), each on a fresh fixture under the person policy (the default), whose
// passes kbz attested, so the new binary pays the whole verification:
//   status10k    `status --json`, 200 ledgers / 10,000 gates, 6,600 met and attested   (#27: ≤ 1.10)
//   hook1k       `hook stop`, one scope, 50 ledgers / 1,000 gates, 950 attested      (#27: ≤ 1.10;
//                #26: within 5 % of bd6a7bc: `--old <a bd6a7bc build> hook1k-agent`)
//   hook1k-agent the same under the agent policy (no attestation to check: the work bd6a7bc did)
//   oracle200    `status`, 200 met gates whose CHECK runs a script (oracle pass records) (#27: ≤ 1.10;
//                the new binary's records carry the scripts' identities, src/io/oracle/identity.ts)
//   reverify200  `check --reverify`, the same 200 gates, each running its script      (#27: ≤ 1.15)
//   inputs-status, inputs-hook  `status` / `hook stop`, 20 met gates whose INPUTS are 500 files
//                (4 MiB)                                                              (#28: ≤ 1.10)
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { definitionDigest } from "../src/core/ledger/digest.ts";
import { automaticEvidence } from "../src/core/ledger/evidence.ts";
import { parseLedger } from "../src/core/ledger/parse.ts";
import { attest } from "../src/io/run/attest.ts";
import { writePolicy } from "../src/io/run/personal.ts";

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  if (i < 0) return dflt;
  const v = argv[i + 1]!;
  argv.splice(i, 2);
  return v;
};
const OLD = path.resolve(opt("--old", "/work/tools/kbz-old-33d2fc2"));
const NEW = path.resolve(opt("--new", path.join(import.meta.dir, "..", "dist", "kbz")));
const RUNS = Number(opt("--runs", "21"));
const CASES = ["status10k", "hook1k", "hook1k-agent", "oracle200", "reverify200", "inputs-status", "inputs-hook"];
const wanted = argv.length > 0 ? argv : CASES;
for (const c of wanted) if (!CASES.includes(c)) throw new Error(`unknown case ${c} (cases: ${CASES.join(", ")})`);

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-cost-")));
fs.chmodSync(base, 0o700);

/** A private approval store (0700), under `policy`. */
function store(name: string, policy: "person" | "agent"): string {
  const dir = path.join(base, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  writePolicy(dir, policy, "terminal");
  return dir;
}

function envFor(approvals: string): Record<string, string> {
  const { CLAUDECODE: _c, ...rest } = process.env as Record<string, string>;
  return { ...rest, UNLAZY_APPROVAL_DIR: approvals, KBZ_CACHE_DIR: path.join(base, "cache") };
}

/** Ledgers of `perLedger` gates running `node checks/…` (never run: the evidence is written as kbz would). */
function writtenLedgers(
  root: string,
  dir: string,
  count: number,
  perLedger: number,
  met: (g: number) => boolean,
): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let l = 0; l < count; l++) {
    const lines = [`# Gates: part ${l}`, ""];
    for (let g = 0; g < perLedger; g++) {
      const check = `node checks/c${l}-${g}.mjs`;
      const expect = g % 5 === 0 ? `/C${l}_${g}_OK \\d+/` : `C${l}_${g}_OK`;
      const evidence = met(g)
        ? automaticEvidence({
            digest: definitionDigest(check, expect, null),
            outputSha256: "ab".repeat(32),
            outputBytes: 12,
            shell: "/bin/sh",
            cwd: root,
            pathFingerprint: "0123456789ab/5 entries",
          })
        : "pending";
      lines.push(
        `- [${met(g) ? "x" : " "}] G${g}: part ${l} outcome ${g} holds`,
        `  CHECK: ${check}`,
        `  EXPECT: ${expect}`,
        `  EVIDENCE: ${evidence}`,
        "",
      );
    }
    const file = path.join(dir, `c${String(l).padStart(3, "0")}.md`);
    fs.writeFileSync(file, lines.join("\n"));
    files.push(file);
  }
  return files;
}

/** kbz's attestation of every met gate, as `kbz check` records it after a pass. */
async function attestAll(approvals: string, root: string, files: string[]): Promise<void> {
  for (const file of files) {
    const l = parseLedger(fs.readFileSync(file, "utf8"), path.basename(file, ".md"));
    const entries = l.gates
      .filter((g) => g.checked)
      .map((g) => ({ gate: g.id, kind: "pass" as const, evidence: g.evidence!, oracle: null, inputs: null }));
    await attest(approvals, root, file, entries);
  }
}

/** A ledger of gates that kbz really runs, approved and passed by the new binary; then the person policy. */
function ranLedger(
  name: string,
  gates: number,
  gate: (i: number, dir: string) => string[],
): { root: string; env: Record<string, string> } {
  const root = path.join(base, name);
  fs.mkdirSync(root);
  const lines = ["# Gates: bench", ""];
  for (let i = 0; i < gates; i++) lines.push(...gate(i, root), "  EVIDENCE: pending", "");
  fs.writeFileSync(path.join(root, "GATES.md"), lines.join("\n"));
  const approvals = store(`${name}-store`, "agent");
  const env = envFor(approvals);
  // Checkers written a while before their pass, as in a real repository: kbz records a file's
  // identity (status then skips re-hashing it) only when its last change is over 2 s old
  // (src/io/oracle/identity.ts RACY_MS).
  Bun.sleepSync(2_100);
  // The old binary approves its own oracles (its approval signature differs) and runs them once.
  for (const bin of [OLD, NEW]) {
    const r = spawnSync(bin, ["check", "--approve", "--reverify"], { cwd: root, env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${bin} check --approve in ${root}: ${r.status}\n${r.stdout}${r.stderr}`);
  }
  writePolicy(approvals, "person", "terminal");
  return { root, env };
}

interface Case {
  label: string;
  cwd: string;
  env: Record<string, string>;
  args: string[];
  /** A Stop hook payload: written fresh for each run (its own session, so the guard judges every stop). */
  payload?: string;
}

async function prepare(name: string): Promise<Case> {
  if (name === "status10k") {
    const root = path.join(base, "status10k");
    const approvals = store("status10k-store", "person");
    await attestAll(
      approvals,
      root,
      writtenLedgers(root, path.join(root, "gates"), 200, 50, (g) => g % 3 !== 0),
    );
    return {
      label: "status --json, 10,000 gates, 6,600 attested",
      cwd: root,
      env: envFor(approvals),
      args: ["status", "--json"],
    };
  }
  if (name === "hook1k" || name === "hook1k-agent") {
    const root = path.join(base, name);
    const approvals = store(`${name}-store`, name === "hook1k" ? "person" : "agent");
    await attestAll(
      approvals,
      root,
      writtenLedgers(root, path.join(root, ".unlazy", "api", "gates"), 50, 20, (g) => g !== 0),
    );
    return {
      label: `hook stop, 1,000 gates, 950 attested, ${name === "hook1k" ? "person" : "agent"} policy`,
      cwd: root,
      env: envFor(approvals),
      args: ["hook", "stop"],
      payload: root,
    };
  }
  if (name === "oracle200" || name === "reverify200") {
    const r = ranLedger(name, 200, (i, root) => {
      fs.mkdirSync(path.join(root, "checks"), { recursive: true });
      fs.writeFileSync(path.join(root, "checks", `c${i}.sh`), `printf tok-${i}\n`);
      return [`- [ ] G${i}: gate ${i} prints its token`, `  CHECK: sh checks/c${i}.sh`, `  EXPECT: tok-${i}`];
    });
    return name === "oracle200"
      ? { label: "status, 200 met gates with oracle pass records", cwd: r.root, env: r.env, args: ["status"] }
      : {
          label: "check --reverify, 200 gates running scripts",
          cwd: r.root,
          env: r.env,
          args: ["check", "--reverify"],
        };
  }
  const r = ranLedger(name, 20, (i, root) => {
    const dir = path.join(root, "data", `d${i}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let j = 0; j < 25; j++) fs.writeFileSync(path.join(dir, `f${j}.txt`), Buffer.alloc(8192, (i * 25 + j) % 251));
    return [`- [ ] G${i}: gate ${i}`, `  CHECK: true && printf tok-${i}`, `  EXPECT: tok-${i}`, `  INPUTS: data/d${i}`];
  });
  if (name === "inputs-status")
    return { label: "status, 20 met gates, 500 INPUTS files", cwd: r.root, env: r.env, args: ["status"] };
  return {
    label: "hook stop, 20 met gates, 500 INPUTS files",
    cwd: r.root,
    env: r.env,
    args: ["hook", "stop"],
    payload: r.root,
  };
}

let session = 0;

/** One run: CPU (user + system) and wall seconds of the finished process. */
function once(bin: string, c: Case): { cpu: number; wall: number; code: number | null } {
  const stdin = c.payload
    ? Buffer.from(
        JSON.stringify({ session_id: `bench-${process.pid}-${session++}`, cwd: c.payload, hook_event_name: "Stop" }),
      )
    : "ignore";
  const t0 = performance.now();
  const r = Bun.spawnSync([bin, ...c.args], { cwd: c.cwd, env: c.env, stdin, stdout: "ignore", stderr: "ignore" });
  const wall = (performance.now() - t0) / 1000;
  return { cpu: Number(r.resourceUsage.cpuTime.total) / 1e6, wall, code: r.exitCode };
}

const median = (xs: number[]) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const row = (xs: number[], digits = 3) => {
  const s = xs.slice().sort((a, b) => a - b);
  return `${s[0]!.toFixed(digits)} ${median(s).toFixed(digits)} ${s[s.length - 1]!.toFixed(digits)}`;
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

console.log(`new ${NEW}\nold ${OLD}\n${RUNS} pairs per case, interleaved (old, new, …); figures min median max`);
for (const name of wanted) {
  const c = await prepare(name);
  for (const bin of [OLD, NEW]) once(bin, c); // warm-up, not counted
  const before = load();
  const runs = { old: [] as ReturnType<typeof once>[], new: [] as ReturnType<typeof once>[] };
  for (let i = 0; i < RUNS; i++) {
    runs.old.push(once(OLD, c));
    runs.new.push(once(NEW, c));
  }
  const cpu = (side: "old" | "new") => runs[side].map((r) => r.cpu);
  const wall = (side: "old" | "new") => runs[side].map((r) => r.wall);
  const ratio = (f: (r: ReturnType<typeof once>) => number) => runs.new.map((r, i) => f(r) / f(runs.old[i]!));
  const codes = (side: "old" | "new") => [...new Set(runs[side].map((r) => r.code))].join(",");
  console.log(
    `== ${name}: ${c.label} (kbz ${c.args.join(" ")}${c.payload ? " < a fresh session's payload" : ""}); load ${before} -> ${load()}`,
  );
  console.log(`  old cpu s   ${row(cpu("old"))}   wall s ${row(wall("old"))}   exit ${codes("old")}`);
  console.log(`  new cpu s   ${row(cpu("new"))}   wall s ${row(wall("new"))}   exit ${codes("new")}`);
  console.log(`  new/old cpu ${row(ratio((r) => r.cpu))}   wall   ${row(ratio((r) => r.wall))}`);
}
if (process.env.KEEP) console.log(`kept ${base}`);
else fs.rmSync(base, { recursive: true, force: true });
