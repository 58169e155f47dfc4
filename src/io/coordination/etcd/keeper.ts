// The keeper: the process that keeps one claim's etcd lease alive. `kbz scope claim` is a short
// process, but etcd expires a lease unless someone renews it, so the claim starts
// `kbz coordinator keep` (detached) and exits. The keeper sends a keepalive every TTL/3 (counted
// from the last send, so a slow answer does not stretch the period) and ends on its own when the
// claim ends: its held record was removed (released from this clone), etcd answers that the lease
// is gone (released elsewhere, or expired), or etcd cannot be reached even to ask the lease's
// remaining time once the lease must have expired by kbz's own conservative count.
// Issue 28 item 13: on a slow cluster (a round trip over TTL/3) each request waits for its answer
// as long as the lease has left (never TTL/3: etcd applies a keepalive it answers late), and
// before giving up the keeper asks etcd for the lease's time to live. Killing the keeper, or the
// machine, lets the lease expire within one TTL.
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

/** Slack kept between a request's own bound and the lease's expiry. */
const MARGIN_MS = 250;

/** Runs until the lease is gone or released; resolves with the reason it stopped. */
export async function keepLease(o: KeeperOptions): Promise<string> {
  const ttlMs = o.ttl * 1000;
  const client = new EtcdClient(parseEndpoints(o.url), { timeoutMs: Math.max(1000, ttlMs) });
  const every = Math.max(500, Math.floor(ttlMs / 3));
  // When the lease expires at the latest as far as kbz knows: counted from the moment a request
  // that etcd answered was sent (etcd renewed it no earlier), so never later than etcd's own.
  let expiresAt = Date.now() + ttlMs;
  // The claim writes its held record just after starting the keeper: a record not seen yet is
  // only "released" once it has existed, or after a second renewal period.
  let seen = false;
  let rounds = 0;
  let lastSend = Date.now();
  process.on("SIGTERM", () => process.exit(0));
  try {
    for (;;) {
      await sleep(Math.max(0, every - (Date.now() - lastSend)));
      rounds++;
      const exists = fs.existsSync(o.heldFile);
      if (exists) seen = true;
      else if (seen || rounds >= 2) return "released";
      const sent = (lastSend = Date.now());
      const bound = Math.max(1000, expiresAt - sent - MARGIN_MS);
      try {
        const left = await client.keepAlive(o.lease, { timeoutMs: bound, retryMs: bound });
        if (left <= 0) return "lease gone at the coordinator";
        expiresAt = sent + left * 1000;
        continue;
      } catch {
        if (Date.now() < expiresAt - MARGIN_MS) continue;
      }
      // No answer and the lease's time is up by kbz's count: ask etcd before giving up (its
      // clock is the one that counts, and it may have applied keepalives it answered late).
      const asked = Date.now();
      try {
        const t = await client.timeToLive(o.lease, {
          timeoutMs: Math.max(1000, ttlMs),
          retryMs: Math.max(1000, ttlMs),
        });
        if (t.ttl <= 0) return "lease gone at the coordinator";
        expiresAt = asked + t.ttl * 1000;
      } catch {
        return "coordinator unreachable for a whole TTL";
      }
    }
  } finally {
    client.close();
  }
}
