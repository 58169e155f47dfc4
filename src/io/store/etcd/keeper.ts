// The keeper: the process that keeps one claim's etcd lease alive. `kbz scope claim` is a short
// process, but etcd expires a lease unless someone renews it, so the claim starts
// `kbz coordinator keep` (detached) and exits. The keeper renews every TTL/3 and ends on its own
// when the claim ends: its held record was removed (released from this clone), etcd answers that
// the lease is gone (released elsewhere, or expired), or it could not reach the cluster for a
// whole TTL (then etcd has expired the lease by its own clock and the holder is told at its next
// command). Killing the keeper, or the machine, lets the lease expire within one TTL.
import * as fs from "node:fs";
import { EtcdClient, parseEndpoints } from "./client.ts";

export interface KeeperOptions {
  url: string;
  lease: string;
  ttl: number;
  heldFile: string;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs until the lease is gone or released; resolves with the reason it stopped. */
export async function keepLease(o: KeeperOptions): Promise<string> {
  const client = new EtcdClient(parseEndpoints(o.url), { timeoutMs: Math.max(1000, (o.ttl * 1000) / 3) });
  const every = Math.max(500, Math.floor((o.ttl * 1000) / 3));
  let lastOk = Date.now();
  // The claim writes its held record just after starting the keeper: a record not seen yet is
  // only "released" once it has existed, or after a second renewal period.
  let seen = false;
  let sleeps = 0;
  process.on("SIGTERM", () => process.exit(0));
  try {
    for (;;) {
      await sleep(every);
      sleeps++;
      const exists = fs.existsSync(o.heldFile);
      if (exists) seen = true;
      else if (seen || sleeps >= 2) return "released";
      try {
        const left = await client.keepAlive(o.lease);
        if (left <= 0) return "lease gone at the coordinator";
        lastOk = Date.now();
      } catch {
        if (Date.now() - lastOk > o.ttl * 1000) return "coordinator unreachable for a whole TTL";
      }
    }
  } finally {
    client.close();
  }
}
