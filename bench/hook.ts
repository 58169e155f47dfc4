// Figures for issue 6: `kbz hook stop` and `node hooks/stop-hook.mjs` (system Node and Node 16) on
// one scope with 50 ledgers and 1,000 gates. Prints numbers; asserts nothing.
// Run after `bun build.ts`: `bun bench/hook.ts`. Target: the binary under 60 ms.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { definitionDigest } from "../src/core/ledger/digest.ts";
import { automaticEvidence } from "../src/core/ledger/evidence.ts";

const REPO = path.resolve(import.meta.dir, "..");
const BIN = path.join(REPO, "dist", "kbz");
const FALLBACK = path.join(REPO, "hooks", "stop-hook.mjs");
const NODE16 = path.join(REPO, "node_modules", "node16", "bin", "node");
const LEDGERS = 50;
const GATES_PER_LEDGER = 20;
const RUNS = 21;

function makeScope(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-hook-")));
  const gates = path.join(root, ".unlazy", "api", "gates");
  fs.mkdirSync(gates, { recursive: true });
  for (let l = 0; l < LEDGERS; l++) {
    const lines = [`# Gates: leaf ${l}`, `OWNS: src/leaf${l}/**`, ""];
    for (let g = 0; g < GATES_PER_LEDGER; g++) {
      const check = `node checks/l${l}-${g}.mjs`;
      const expect = g % 5 === 0 ? `/L${l}_${g}_OK \\d+/` : `L${l}_${g}_OK`;
      // Every gate met except one per ledger, so each stop blocks and exercises the guard.
      const met = g !== 0;
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
        `- [${met ? "x" : " "}] G${g}: leaf ${l} outcome ${g} holds`,
        `  CHECK: ${check}`,
        `  EXPECT: ${expect}`,
        `  EVIDENCE: ${evidence}`,
        "",
      );
    }
    fs.writeFileSync(path.join(gates, `leaf-${String(l).padStart(2, "0")}.md`), lines.join("\n"));
  }
  return root;
}

function time(cmd: string, args: string[], root: string): number[] {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // A fresh session per run keeps the guard counting blocks rather than releasing.
    const input = JSON.stringify({ cwd: root, session_id: `bench-${i}`, hook_event_name: "Stop" });
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { cwd: root, input, encoding: "utf8" });
    samples.push(performance.now() - t0);
    if (r.status !== 0 || !r.stdout.includes('"decision":"block"'))
      throw new Error(`${cmd} did not block: ${r.stdout}${r.stderr}`);
  }
  return samples.sort((a, b) => a - b);
}

const fmt = (s: number[]) =>
  `median ${s[s.length >> 1]!.toFixed(1)} ms, min ${s[0]!.toFixed(1)} ms, max ${s[s.length - 1]!.toFixed(1)} ms`;

const root = makeScope();
console.log(`scope: ${LEDGERS} ledgers, ${LEDGERS * GATES_PER_LEDGER} gates (${RUNS} runs each)`);
console.log(`kbz hook stop               ${fmt(time(BIN, ["hook", "stop"], root))}`);
console.log(`node stop-hook.mjs (system) ${fmt(time("node", [FALLBACK], root))}`);
if (fs.existsSync(NODE16)) console.log(`node16 stop-hook.mjs        ${fmt(time(NODE16, [FALLBACK], root))}`);
if (process.env.KEEP) console.log(`kept ${root}`);
else fs.rmSync(root, { recursive: true, force: true });
