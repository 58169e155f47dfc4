// Issue 28 item 13: a slow cluster loses leases it was renewing. A real etcd on loopback behind a
// proxy that delays every answer by more than TTL/3: etcd applies each keepalive at once, only
// its answer is late. The keeper (the binary's `kbz coordinator keep`) must keep the lease alive.
// Fails on 33d2fc2 (KBZ_TEST_BIN=/work/tools/kbz-old-33d2fc2): its keeper timed its requests out
// after TTL/3 and gave up after one TTL, and the lease then really expired.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { EtcdClient, parseEndpoints } from "../../../../src/io/coordination/etcd/client.ts";
import { startCluster, type Cluster } from "../../../helpers/etcd-cluster.ts";
import { BIN, tempDir } from "../../../helpers/kbz.ts";
import { needs } from "../../../helpers/needs.ts";

const available = needs("etcd");

let cluster: Cluster;
beforeAll(async () => {
  if (available) cluster = await startCluster(1);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

/** A loopback proxy to `port` that holds every answer back by `delayMs`. */
async function slowProxy(port: number, delayMs: number): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    client.on("data", (d) => upstream.write(d));
    upstream.on("data", (d) => setTimeout(() => client.writable && client.write(d), delayMs));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", () => setTimeout(end, delayMs + 50));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

describe.skipIf(!available)("issue 28 item 13: etcd keepalive on a slow cluster", () => {
  test("item 13: a slow cluster loses leases it was renewing → with answers slower than TTL/3 the keeper keeps the lease for 3 TTLs", async () => {
    const ttl = 3;
    const direct = new EtcdClient(parseEndpoints(`etcd://127.0.0.1:${cluster.members[0]!.client}`));
    const proxy = await slowProxy(cluster.members[0]!.client, 1400);
    const dir = tempDir();
    const held = path.join(dir, "held");
    fs.writeFileSync(held, "{}");
    fs.mkdirSync(path.join(dir, ".kbz"));
    fs.writeFileSync(
      path.join(dir, ".kbz", "settings.json"),
      JSON.stringify({ coordinator: { repository: `keeper-${process.pid}` } }),
    );
    const { id } = await direct.grant(ttl);
    const keeper = Bun.spawn(
      [
        BIN,
        "coordinator",
        "keep",
        "--coordinator",
        `etcd://127.0.0.1:${proxy.port}`,
        "--lease",
        id,
        "--ttl",
        String(ttl),
        "--held",
        held,
      ],
      {
        cwd: dir,
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    try {
      await new Promise((r) => setTimeout(r, 3 * ttl * 1000));
      expect(keeper.exitCode).toBeNull(); // still keeping
      expect((await direct.timeToLive(id)).ttl).toBeGreaterThan(0);
    } finally {
      keeper.kill("SIGKILL");
      await keeper.exited;
      proxy.close();
      await direct.revoke(id).catch(() => {});
      direct.close();
    }
  }, 60_000);
});
