// Figures for issue 27 (attestations): prepares bench/status.ts's workspace (200 ledgers, 10,000
// gates, two in three met) and bench/hook.ts's scope (50 ledgers, 1,000 gates), and an approval
// store under the person policy holding kbz's attestation record of every met gate, so status and
// the Stop hook pay the whole verification (one read per ledger, one HMAC per met gate). Prints
// the farm-bench commands that time old and new binaries side by side on them; asserts nothing.
// Run after `bun build.ts`: `bun bench/attested.ts [OLD_BINARY]`.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { definitionDigest } from "../src/core/ledger/digest.ts";
import { automaticEvidence } from "../src/core/ledger/evidence.ts";
import { parseLedger } from "../src/core/ledger/parse.ts";
import { attest } from "../src/io/run/attest.ts";

const BIN = path.resolve(import.meta.dir, "..", "dist", "kbz");
const OLD = process.argv[2] ?? "/work/tools/kbz-old-33d2fc2";

function ledgers(root: string, dir: string, count: number, perLedger: number, met: (g: number) => boolean): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let l = 0; l < count; l++) {
    const lines = [`# Gates: part ${l}`, ""];
    for (let g = 0; g < perLedger; g++) {
      const check = `node checks/c${l}-${g}.mjs`;
      const expect = g % 5 === 0 ? `/C${l}_${g}_OK \\d+/` : `C${l}_${g}_OK`;
      const evidence = met(g)
        ? automaticEvidence({ digest: definitionDigest(check, expect, null), outputSha256: "ab".repeat(32), outputBytes: 12, shell: "/bin/sh", cwd: root, pathFingerprint: "0123456789ab/5 entries" })
        : "pending";
      lines.push(`- [${met(g) ? "x" : " "}] G${g}: part ${l} outcome ${g} holds`, `  CHECK: ${check}`, `  EXPECT: ${expect}`, `  EVIDENCE: ${evidence}`, "");
    }
    const file = path.join(dir, `c${String(l).padStart(3, "0")}.md`);
    fs.writeFileSync(file, lines.join("\n"));
    files.push(file);
  }
  return files;
}

async function attestAll(store: string, root: string, files: string[]): Promise<number> {
  let n = 0;
  for (const file of files) {
    const l = parseLedger(fs.readFileSync(file, "utf8"), path.basename(file, ".md"));
    const entries = l.gates
      .filter((g) => g.checked)
      .map((g) => ({ gate: g.id, kind: "pass" as const, definition: definitionDigest(g.check!, g.expect!, null), evidence: g.evidence!, oracle: null, inputs: null }));
    await attest(store, root, file, entries, "kbz");
    n += entries.length;
  }
  return n;
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-attested-")));
fs.chmodSync(base, 0o700);
const store = path.join(base, "store");
fs.mkdirSync(store, { mode: 0o700 });
const statusRoot = path.join(base, "status");
const hookRoot = path.join(base, "hook");
const a = await attestAll(store, statusRoot, ledgers(statusRoot, path.join(statusRoot, "gates"), 200, 50, (g) => g % 3 !== 0));
const b = await attestAll(store, hookRoot, ledgers(hookRoot, path.join(hookRoot, ".unlazy", "api", "gates"), 50, 20, (g) => g !== 0));
console.log(`store ${store}: ${a} + ${b} attested gates (person policy)`);
const env = `UNLAZY_APPROVAL_DIR=${store}`;
const payload = path.join(base, "payload.json");
fs.writeFileSync(payload, JSON.stringify({ session_id: "bench", cwd: hookRoot }));
console.log(`farm-bench -n 15 -- sh -c 'cd ${statusRoot} && ${env} ${BIN} status --json >/dev/null' --vs "sh -c 'cd ${statusRoot} && ${env} ${OLD} status --json >/dev/null'"`);
console.log(`farm-bench -n 21 -- sh -c '${env} ${BIN} hook stop <${payload} >/dev/null' --vs "sh -c '${env} ${OLD} hook stop <${payload} >/dev/null'"`);
console.log(`remove afterwards: rm -rf ${base}`);
