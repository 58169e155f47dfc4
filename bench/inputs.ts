// Figures for issue 28: what streamed INPUTS hashing, the sandbox profile and the watchdog cost,
// old binary against new, interleaved by farm-bench (on PATH). Prints farm-bench's figures;
// asserts nothing. Run after `bun build.ts`:
//   bun bench/inputs.ts /work/tools/kbz-old-33d2fc2
// Cases: `kbz check --reverify` on 20 trivial gates (plain and --sandbox), `kbz status` and
// `kbz hook stop` on 20 met gates whose INPUTS are 25 files of 8 KiB each (500 files, 4 MiB).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const NEW = path.resolve(import.meta.dir, "..", "dist", "kbz");
const OLD = process.argv[2];
if (!OLD) throw new Error("usage: bun bench/inputs.ts <old kbz binary>");
const RUNS = process.env.RUNS ?? "10";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-inputs-"));
const store = path.join(base, "store");
fs.mkdirSync(store, { mode: 0o700 });
const env = { ...process.env, UNLAZY_APPROVAL_DIR: store, KBZ_CACHE_DIR: path.join(base, "cache") };

function ledger(dir: string, inputs: boolean): void {
  const lines = ["# Gates: bench", ""];
  for (let i = 0; i < 20; i++) {
    lines.push(`- [ ] G${i}: gate ${i}`, `  CHECK: true && printf tok-${i}`, `  EXPECT: tok-${i}`);
    if (inputs) lines.push(`  INPUTS: data/d${i}`);
    lines.push("  EVIDENCE: pending", "");
    if (inputs) {
      fs.mkdirSync(path.join(dir, "data", `d${i}`), { recursive: true });
      for (let j = 0; j < 25; j++)
        fs.writeFileSync(path.join(dir, "data", `d${i}`, `f${j}.txt`), Buffer.alloc(8192, (i * 25 + j) % 251));
    }
  }
  fs.writeFileSync(path.join(dir, "GATES.md"), lines.join("\n"));
}

const run = (bin: string, args: string[], cwd: string) => spawnSync(bin, args, { cwd, env, stdio: "ignore" }).status;
const plain = path.join(base, "plain");
const withInputs = path.join(base, "inputs");
fs.mkdirSync(plain);
fs.mkdirSync(withInputs);
ledger(plain, false);
ledger(withInputs, true);
// Approvals for both binaries (the sandbox profile differs, so each approves its own).
for (const bin of [NEW, OLD]) run(bin, ["check", "--approve", "--reverify", "--sandbox"], plain);
run(NEW, ["check", "--approve"], plain);
run(NEW, ["check", "--approve"], withInputs);
const payload = path.join(base, "payload.json");
fs.writeFileSync(payload, JSON.stringify({ session_id: "bench", cwd: withInputs }));

function bench(label: string, cwd: string, a: string[], b: string[]): void {
  const r = spawnSync("farm-bench", ["-n", RUNS, "--timeout", "600", "--vs", b.join(" "), "--", ...a], {
    cwd,
    env,
    encoding: "utf8",
  });
  const keep = (r.stdout + r.stderr).split("\n").filter((l) => /^(A|B) (wall|cpu)|^A\/B (wall|cpu)/.test(l));
  console.log(`== ${label} (A new, B old; min median max)\n${keep.join("\n")}`);
}

const hook = (bin: string) => ["sh", "-c", `'${bin}' hook stop < '${payload}'`];
bench("kbz check --reverify, 20 gates", plain, [NEW, "check", "--reverify"], [OLD, "check", "--reverify"]);
bench(
  "kbz check --reverify --sandbox, 20 gates",
  plain,
  [NEW, "check", "--reverify", "--sandbox"],
  [OLD, "check", "--reverify", "--sandbox"],
);
bench("kbz status, 20 met gates with 500 INPUTS files", withInputs, [NEW, "status"], [OLD, "status"]);
bench("kbz hook stop, the same", withInputs, hook(NEW), [`sh -c "'${OLD}' hook stop < '${payload}'"`]);
fs.rmSync(base, { recursive: true, force: true });
