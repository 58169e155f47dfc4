// A real three-member etcd cluster on loopback for tests and benches: random free ports, data
// dirs in one temp folder that `stop()` removes. Nothing listens outside 127.0.0.1.
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { tempDir } from "./tmp.ts";

export interface Member {
  name: string;
  client: number;
  peer: number;
  proc: ChildProcess | null;
  log: string;
  /** Why the last launch could not start a process (spawn 'error'), else null. */
  failed: string | null;
}

export interface Cluster {
  members: Member[];
  /** `etcd://127.0.0.1:P1,127.0.0.1:P2,…` */
  url: string;
  dir: string;
  kill(i: number, signal?: NodeJS.Signals): Promise<void>;
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

/** A port the kernel just handed out (and we released); etcd binds it right after. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** etcd as PATH finds it (Debian's etcd-server puts it in /usr/bin, a release tarball often in /usr/local/bin). */
export const ETCD = Bun.which("etcd") ?? "etcd";

export function etcdAvailable(): boolean {
  return Bun.which("etcd") !== null;
}

async function healthy(port: number): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
    return r.ok && ((await r.json()) as { health?: string }).health === "true";
  } catch {
    return false;
  }
}

export async function startCluster(size = 3): Promise<Cluster> {
  // Tracked by the test run (test/helpers/tmp.ts) as well as removed by stop(): nothing is left.
  const dir = tempDir("kbz-etcd-");
  const used = new Set<number>();
  const port = async () => {
    for (;;) {
      const p = await freePort();
      if (!used.has(p)) {
        used.add(p);
        return p;
      }
    }
  };
  const members: Member[] = [];
  for (let i = 0; i < size; i++)
    members.push({
      name: `m${i}`,
      client: await port(),
      peer: await port(),
      proc: null,
      log: path.join(dir, `m${i}.log`),
      failed: null,
    });
  const initial = members.map((m) => `${m.name}=http://127.0.0.1:${m.peer}`).join(",");
  const token = `kbz-test-${path.basename(dir)}`;
  const launch = (m: Member) => {
    const out = fs.openSync(m.log, "a");
    m.failed = null;
    const proc = spawn(
      ETCD,
      [
        "--name",
        m.name,
        "--data-dir",
        path.join(dir, m.name),
        "--listen-client-urls",
        `http://127.0.0.1:${m.client}`,
        "--advertise-client-urls",
        `http://127.0.0.1:${m.client}`,
        "--listen-peer-urls",
        `http://127.0.0.1:${m.peer}`,
        "--initial-advertise-peer-urls",
        `http://127.0.0.1:${m.peer}`,
        "--initial-cluster",
        initial,
        "--initial-cluster-token",
        token,
        "--initial-cluster-state",
        "new",
        // Short election timings keep a failover inside a test's budget on a loaded machine.
        "--heartbeat-interval",
        "100",
        "--election-timeout",
        "1000",
        "--logger",
        "zap",
        "--log-level",
        "warn",
      ],
      { stdio: ["ignore", out, out] },
    );
    fs.closeSync(out);
    // A process that cannot start (no etcd, not executable) emits 'error' and never 'exit':
    // record why, so waiting for health fails at once and stop() does not wait for an exit.
    proc.once("error", (e) => {
      m.failed = `${ETCD}: ${e.message}`;
      if (m.proc === proc) m.proc = null;
    });
    m.proc = proc;
  };
  for (const m of members) launch(m);
  const waitHealthy = async (ms: number, which: Member[]) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const failed = which.find((m) => m.failed !== null);
      if (failed) throw new Error(`etcd could not start: ${failed.failed} (install: apt-get install etcd-server)`);
      const ok = await Promise.all(which.map((m) => healthy(m.client)));
      if (ok.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error(`etcd cluster did not become healthy; logs in ${dir}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const cluster: Cluster = {
    members,
    dir,
    url: "etcd://" + members.map((m) => `127.0.0.1:${m.client}`).join(","),
    async kill(i, signal = "SIGKILL") {
      const p = members[i]!.proc;
      if (!p || p.pid === undefined || p.exitCode !== null || p.signalCode !== null) return;
      const done = new Promise((r) => p.once("exit", r));
      p.kill(signal);
      // A member that ignores SIGTERM for 5 s is killed outright: no test leaves one running.
      const hard = setTimeout(() => p.kill("SIGKILL"), 5000);
      await done;
      clearTimeout(hard);
      members[i]!.proc = null;
    },
    async restart(i) {
      launch(members[i]!);
      await waitHealthy(20_000, [members[i]!]);
    },
    async stop() {
      await Promise.all(members.map((_, i) => cluster.kill(i, "SIGTERM")));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitHealthy(30_000, members);
  } catch (e) {
    await cluster.stop().catch(() => {});
    throw e;
  }
  return cluster;
}
