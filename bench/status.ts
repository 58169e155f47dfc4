// Figures for issue 2: `kbz status --json` on 200 ledgers / 10,000 gates, and `kbz --version`.
// Prints numbers; asserts nothing. Run after `bun build.ts`: `bun bench/status.ts`.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { definitionDigest } from "../src/core/ledger/digest.ts";
import { automaticEvidence } from "../src/core/ledger/evidence.ts";

const BIN = path.resolve(import.meta.dir, "..", "dist", "kbz");
const LEDGERS = 200;
const GATES_PER_LEDGER = 50;
const RUNS = 15;

function makeWorkspace(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-status-"));
  fs.mkdirSync(path.join(root, "gates"));
  for (let l = 0; l < LEDGERS; l++) {
    const lines = [`# Gates: component ${l}`, ""];
    for (let g = 0; g < GATES_PER_LEDGER; g++) {
      const check = `node checks/c${l}-${g}.mjs`;
      // One EXPECT in five is a regex, as in real ledgers; the rest are literal markers.
      const expect = g % 5 === 0 ? `/C${l}_${g}_OK \\d+/` : `C${l}_${g}_OK`;
      const met = g % 3 !== 0;
      const evidence = met
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
        `- [${met ? "x" : " "}] G${g}: component ${l} outcome ${g} holds`,
        `  CHECK: ${check}`,
        `  EXPECT: ${expect}`,
        `  EVIDENCE: ${evidence}`,
        "",
      );
    }
    fs.writeFileSync(path.join(root, "gates", `c${String(l).padStart(3, "0")}.md`), lines.join("\n"));
  }
  return root;
}

interface Samples {
  wall: number[];
  cpu: number[]; // user + system time of the kbz process: what the machine's other load cannot inflate much
}

function time(args: string[], cwd: string): Samples {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = Bun.spawnSync([BIN, ...args], { cwd, stdout: "ignore", stderr: "inherit" });
    wall.push(performance.now() - t0);
    cpu.push(Number(r.resourceUsage.cpuTime.total) / 1000);
    if (r.exitCode === 2) throw new Error(`kbz ${args.join(" ")} failed`);
  }
  const sort = (a: number[]) => a.sort((x, y) => x - y);
  return { wall: sort(wall), cpu: sort(cpu) };
}

const med = (a: number[]) => a[a.length >> 1]!.toFixed(1);
const fmt = (s: Samples) =>
  `wall median ${med(s.wall)} ms (min ${s.wall[0]!.toFixed(1)}), cpu median ${med(s.cpu)} ms (min ${s.cpu[0]!.toFixed(1)})`;

const root = makeWorkspace();
const size = fs
  .readdirSync(path.join(root, "gates"))
  .reduce((n, f) => n + fs.statSync(path.join(root, "gates", f)).size, 0);
console.log(
  `load average: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} on ${os.cpus().length} cores (wall time grows with it; cpu time much less)`,
);
console.log(
  `workspace: ${LEDGERS} ledgers, ${LEDGERS * GATES_PER_LEDGER} gates, ${(size / 1024 / 1024).toFixed(1)} MiB`,
);
time(["status", "--json"], root); // warm the page cache
console.log(`kbz status --json: ${fmt(time(["status", "--json"], root))}   (target < 150 ms)`);
console.log(`kbz --version:     ${fmt(time(["--version"], root))}   (target < 40 ms)`);
if (!process.env.KEEP) fs.rmSync(root, { recursive: true, force: true });
else console.log(root);
