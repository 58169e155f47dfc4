// Figures for issue 17: claim and release latency (median, p99) against the files and against a
// real three-member etcd cluster on loopback, through the coordination adapter (in-process, what every verb
// calls) and through the kbz binary (a whole command: process start, the coordination adapter, and for etcd the
// keeper it starts). Prints numbers; asserts nothing. Run after `bun build.ts`:
//   bun bench/coordinator.ts [ROUNDS]
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EtcdCoordination } from "../src/io/coordination/etcd/coordination.ts";
import { filesCoordination } from "../src/io/coordination/files.ts";
import type { Coordination } from "../src/io/coordination/port.ts";
import { startCluster } from "../test/helpers/etcd-cluster.ts";

const REPO = path.resolve(import.meta.dir, "..");
const BIN = path.join(REPO, "dist", "kbz");
const ROUNDS = Number(process.argv[2] ?? 200);
const CLI_ROUNDS = Math.max(10, Math.floor(ROUNDS / 5));

function workspace(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "kbz-bench-coord-")));
  fs.mkdirSync(path.join(root, ".unlazy/bench/gates"), { recursive: true });
  fs.writeFileSync(
    path.join(root, ".unlazy/bench/gates/leaf-1.md"),
    "OWNS: src/a/**\n\n- [ ] G1: outcome\n  EVIDENCE: pending\n",
  );
  return root;
}

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return `median ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms`;
}

async function viaStore(coord: Coordination, rounds: number): Promise<{ claim: number[]; release: number[] }> {
  for (let i = 0; i < 5; i++) await coord.claim("bench", `other-${i}`, [`lib/p${i}/**`]);
  const claim: number[] = [];
  const release: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    const r = await coord.claim("bench", "leaf-1", ["src/a/**"]);
    claim.push(performance.now() - t);
    if (!r.ok) throw new Error("bench claim refused");
    t = performance.now();
    await coord.release("bench", "leaf-1");
    release.push(performance.now() - t);
  }
  for (let i = 0; i < 5; i++) await coord.release("bench", `other-${i}`);
  return { claim, release };
}

function viaBinary(root: string, env: Record<string, string>, rounds: number): { claim: number[]; release: number[] } {
  const run = (...args: string[]) => {
    const t = performance.now();
    const r = spawnSync(BIN, args, { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`kbz ${args.join(" ")}: ${r.stderr}`);
    return performance.now() - t;
  };
  const claim: number[] = [];
  const release: number[] = [];
  for (let i = 0; i < rounds; i++) {
    claim.push(run("scope", "claim", "--scope", "bench", "--leaf", "leaf-1"));
    release.push(run("scope", "release", "--scope", "bench", "--leaf", "leaf-1"));
  }
  return { claim, release };
}

const cluster = await startCluster(3);
const roots: string[] = [];
try {
  const filesRoot = workspace();
  const etcdRoot = workspace();
  roots.push(filesRoot, etcdRoot);
  const etcd = new EtcdCoordination({
    root: etcdRoot,
    url: cluster.url,
    repository: "bench",
    ttl: 30,
    keepAlive: "inline",
  });
  // Interleaved in blocks, so a load spike on the shared machine hits both sides alike.
  const f = { claim: [] as number[], release: [] as number[] };
  const e = { claim: [] as number[], release: [] as number[] };
  const block = 20;
  for (let done = 0; done < ROUNDS; done += block) {
    const a = await viaStore(filesCoordination(filesRoot), block);
    const b = await viaStore(etcd, block);
    f.claim.push(...a.claim);
    f.release.push(...a.release);
    e.claim.push(...b.claim);
    e.release.push(...b.release);
  }
  etcd.close();
  console.log(`coord, in-process, ${ROUNDS} claim/release rounds (5 other leases held):`);
  console.log(`  files   claim ${stats(f.claim)} | release ${stats(f.release)}`);
  console.log(`  etcd    claim ${stats(e.claim)} | release ${stats(e.release)}  (3 members, loopback)`);

  const fb = { claim: [] as number[], release: [] as number[] };
  const eb = { claim: [] as number[], release: [] as number[] };
  fs.mkdirSync(path.join(etcdRoot, ".kbz"), { recursive: true });
  fs.writeFileSync(
    path.join(etcdRoot, ".kbz/settings.json"),
    JSON.stringify({ coordinator: { repository: "bench-cli" } }),
  );
  for (let done = 0; done < CLI_ROUNDS; done += 5) {
    const a = viaBinary(filesRoot, {}, 5);
    const b = viaBinary(etcdRoot, { KBZ_COORDINATOR: cluster.url }, 5);
    fb.claim.push(...a.claim);
    fb.release.push(...a.release);
    eb.claim.push(...b.claim);
    eb.release.push(...b.release);
  }
  console.log(`kbz binary, ${CLI_ROUNDS} rounds of kbz scope claim / kbz scope release:`);
  console.log(`  files   claim ${stats(fb.claim)} | release ${stats(fb.release)}`);
  console.log(
    `  etcd    claim ${stats(eb.claim)} | release ${stats(eb.release)}  (claim includes starting the keeper)`,
  );
} finally {
  await cluster.stop();
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
}
