// A minimal etcd v3 client over etcd's documented JSON gateway (/v3/…, base64 keys and values,
// 64-bit integers as decimal strings). node:http only, so the same code runs in the compiled
// binary and in the Node 16 Stop hook fallback. Endpoints are tried in order; a connection
// failure moves on to the next member, an etcd error answer is final.
import * as http from "node:http";
import { KbzError } from "../../../core/errors.ts";
import { kbz } from "../../../core/text/command.ts";

/** The cluster cannot be used (unreachable, no quorum, refused): exit 2, never a local fallback. */
export class CoordinatorError extends KbzError {
  constructor(
    message: string,
    hint = `check the cluster with ${kbz("coordinator status")}; kbz never falls back to the files while a coordinator is set`,
  ) {
    super(message, { kind: "infrastructure", code: "coordinator", hint });
  }
}

export interface Endpoint {
  host: string;
  port: number;
}

export interface KeyValue {
  key: string; // decoded
  value: string; // decoded
  createRevision: string;
  modRevision: string;
  lease: string; // "0" when none
}

export interface RangeResult {
  revision: string;
  kvs: KeyValue[];
}

export type Compare =
  | { key: string; rangeEnd?: string; target: "MOD"; result: "LESS" | "EQUAL"; modRevision: string }
  | { key: string; target: "CREATE"; result: "EQUAL"; createRevision: string }
  | { key: string; target: "VALUE"; result: "EQUAL"; value: string }
  | { key: string; target: "LEASE"; result: "EQUAL"; lease: string };

export type Op =
  | { put: { key: string; value: string; lease?: string } }
  | { del: { key: string; rangeEnd?: string } }
  | { range: { key: string; rangeEnd?: string } };

/** The key-values of one range response inside a transaction's responses. */
export function rangeKvs(resp: any): KeyValue[] {
  return (resp?.response_range?.kvs ?? []).map(decodeKv);
}

export interface TxnResult {
  succeeded: boolean;
  revision: string;
  responses: any[];
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: string | undefined) => (s === undefined ? "" : Buffer.from(s, "base64").toString("utf8"));

/** The first key after every key that starts with `prefix` (etcd's prefix range end); kbz keys are ASCII. */
export function prefixEnd(prefix: string): string {
  if (!/^[\x20-\x7e]+$/.test(prefix)) throw new CoordinatorError("etcd key prefixes must be printable ASCII");
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** `etcd://h:p[,h:p…]`; only hosts and ports, no paths, credentials or queries. */
export function parseEndpoints(url: string): Endpoint[] {
  const m = /^etcd:\/\/([^/?#@]+)\/?$/.exec(url.trim());
  if (!m)
    throw new CoordinatorError(
      `coordinator must look like etcd://HOST:PORT[,HOST:PORT…], got ${JSON.stringify(url).slice(0, 200)}`,
    );
  return m[1]!.split(",").map((hp) => {
    const at = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(hp.trim());
    const port = at ? Number(at[2]) : NaN;
    if (!at || !(port >= 1 && port <= 65535))
      throw new CoordinatorError(`coordinator endpoint must be HOST:PORT, got ${JSON.stringify(hp).slice(0, 100)}`);
    return { host: at[1]!.replace(/^\[|\]$/g, ""), port };
  });
}

export function decodeKv(kv: any): KeyValue {
  return {
    key: unb64(kv.key),
    value: unb64(kv.value),
    createRevision: String(kv.create_revision ?? "0"),
    modRevision: String(kv.mod_revision ?? "0"),
    lease: String(kv.lease ?? "0"),
  };
}

function encodeCompare(c: Compare): unknown {
  switch (c.target) {
    case "MOD":
      return {
        key: b64(c.key),
        ...(c.rangeEnd ? { range_end: b64(c.rangeEnd) } : {}),
        target: "MOD",
        result: c.result,
        mod_revision: c.modRevision,
      };
    case "CREATE":
      return { key: b64(c.key), target: "CREATE", result: "EQUAL", create_revision: c.createRevision };
    case "VALUE":
      return { key: b64(c.key), target: "VALUE", result: "EQUAL", value: b64(c.value) };
    case "LEASE":
      return { key: b64(c.key), target: "LEASE", result: "EQUAL", lease: c.lease };
  }
}

function encodeOp(o: Op): unknown {
  if ("put" in o)
    return {
      request_put: { key: b64(o.put.key), value: b64(o.put.value), ...(o.put.lease ? { lease: o.put.lease } : {}) },
    };
  if ("del" in o)
    return {
      request_delete_range: { key: b64(o.del.key), ...(o.del.rangeEnd ? { range_end: b64(o.del.rangeEnd) } : {}) },
    };
  return {
    request_range: { key: b64(o.range.key), ...(o.range.rangeEnd ? { range_end: b64(o.range.rangeEnd) } : {}) },
  };
}

/** A request that failed before etcd answered: the next member may answer it. */
class Unreachable extends Error {}

export interface ClientOptions {
  /** Per request and member; a member without quorum answers within etcd's own timeout. */
  timeoutMs?: number;
  /** How long to keep trying while no member can serve; default 6 s. */
  retryMs?: number;
}

/** One call's own bounds (the keeper sizes them by the lease's remaining time). */
export interface CallOptions {
  timeoutMs?: number;
  retryMs?: number;
}

export class EtcdClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private preferred = 0;
  readonly timeoutMs: number;
  readonly retryMs: number;

  constructor(
    readonly endpoints: Endpoint[],
    opts: ClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.retryMs = opts.retryMs ?? 6000;
  }

  get label(): string {
    return "etcd://" + this.endpoints.map((e) => `${e.host}:${e.port}`).join(",");
  }

  close(): void {
    this.agent.destroy();
  }

  private once(ep: Endpoint, path: string, body: unknown, timeoutMs = this.timeoutMs): Promise<any> {
    return new Promise((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = http.request(
        {
          host: ep.host,
          port: ep.port,
          path,
          method: "POST",
          agent: this.agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (e) => reject(new Unreachable(e.message)));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: any;
            try {
              parsed = JSON.parse(text);
            } catch {
              return reject(new Unreachable(`${ep.host}:${ep.port} answered HTTP ${res.statusCode} without JSON`));
            }
            if (res.statusCode !== 200 || parsed.error) {
              const msg = String(parsed.error ?? parsed.message ?? `HTTP ${res.statusCode}`);
              // A member that lost its leader or quorum cannot serve anyone; another one might.
              if (
                res.statusCode === 503 ||
                /no leader|timed out|not capable|leader changed|too many requests|unhealthy/i.test(msg)
              )
                return reject(new Unreachable(`${ep.host}:${ep.port}: ${msg}`));
              return reject(new CoordinatorError(`etcd ${ep.host}:${ep.port}: ${msg}`));
            }
            resolve(parsed);
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on("error", (e) =>
        reject(new Unreachable(`${ep.host}:${ep.port}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)),
      );
      req.end(data);
    });
  }

  /**
   * POST to each member in turn, starting with the last one that answered. When none can serve
   * (a member died and the others are electing a leader) try again until `retryMs` has passed:
   * an election takes about one election timeout, a lost quorum never ends by itself.
   */
  async call(path: string, body: unknown, opts: CallOptions = {}): Promise<any> {
    const deadline = Date.now() + (opts.retryMs ?? this.retryMs);
    const n = this.endpoints.length;
    let failures: string[] = [];
    for (let round = 0; ; round++) {
      failures = [];
      for (let i = 0; i < n; i++) {
        const at = (this.preferred + i) % n;
        try {
          const r = await this.once(this.endpoints[at]!, path, body, opts.timeoutMs);
          this.preferred = at;
          return r;
        } catch (e) {
          if (!(e instanceof Unreachable)) throw e;
          failures.push(e.message);
        }
      }
      if (Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, Math.min(500, 50 * 2 ** round)));
    }
    throw new CoordinatorError(
      `coordinator ${this.label} is unreachable or has no quorum (${failures.join("; ")}); nothing was changed. Check the cluster (${kbz("coordinator status")}) or run without --coordinator`,
    );
  }

  async range(
    key: string,
    rangeEnd?: string,
    opts: { sortByCreate?: boolean; countOnly?: boolean } = {},
  ): Promise<RangeResult> {
    const r = await this.call("/v3/kv/range", {
      key: b64(key),
      ...(rangeEnd ? { range_end: b64(rangeEnd) } : {}),
      ...(opts.sortByCreate ? { sort_order: "ASCEND", sort_target: "CREATE" } : {}),
    });
    return { revision: String(r.header?.revision ?? "0"), kvs: (r.kvs ?? []).map(decodeKv) };
  }

  async prefix(prefix: string, opts: { sortByCreate?: boolean } = {}): Promise<RangeResult> {
    return this.range(prefix, prefixEnd(prefix), opts);
  }

  async txn(compare: Compare[], success: Op[], failure: Op[] = []): Promise<TxnResult> {
    const r = await this.call("/v3/kv/txn", {
      compare: compare.map(encodeCompare),
      success: success.map(encodeOp),
      failure: failure.map(encodeOp),
    });
    return {
      succeeded: r.succeeded === true,
      revision: String(r.header?.revision ?? "0"),
      responses: r.responses ?? [],
    };
  }

  async put(key: string, value: string, lease?: string): Promise<string> {
    const r = await this.call("/v3/kv/put", { key: b64(key), value: b64(value), ...(lease ? { lease } : {}) });
    return String(r.header?.revision ?? "0");
  }

  async grant(ttlSeconds: number): Promise<{ id: string; ttl: number }> {
    const r = await this.call("/v3/lease/grant", { TTL: String(ttlSeconds) });
    if (!r.ID) throw new CoordinatorError(`etcd refused a lease: ${r.error ?? "no ID"}`);
    return { id: String(r.ID), ttl: Number(r.TTL) };
  }

  /** Revoking deletes every key attached to the lease in one step; an unknown lease is already gone. */
  async revoke(id: string): Promise<{ revision: string; existed: boolean }> {
    try {
      const r = await this.call("/v3/lease/revoke", { ID: id });
      return { revision: String(r.header?.revision ?? "0"), existed: true };
    } catch (e) {
      if (e instanceof CoordinatorError && /lease not found/i.test(e.message)) return { revision: "0", existed: false };
      throw e;
    }
  }

  /** One keep-alive round: the lease's remaining TTL in seconds as etcd counts it, 0 when gone. */
  async keepAlive(id: string, opts: CallOptions = {}): Promise<number> {
    const r = await this.call("/v3/lease/keepalive", { ID: id }, opts);
    const result = r.result ?? r;
    return Number(result.TTL ?? 0);
  }

  /** Remaining TTL by etcd's clock (-1 when the lease is gone). */
  async timeToLive(id: string, opts: CallOptions = {}): Promise<{ ttl: number; granted: number }> {
    const r = await this.call("/v3/lease/timetolive", { ID: id }, opts);
    return { ttl: Number(r.TTL ?? -1), granted: Number(r.grantedTTL ?? 0) };
  }

  async members(): Promise<{ id: string; name: string; clientURLs: string[] }[]> {
    const r = await this.call("/v3/cluster/member/list", {});
    return (r.members ?? []).map((m: any) => ({
      id: String(m.ID),
      name: String(m.name ?? ""),
      clientURLs: (m.clientURLs ?? []).map(String),
    }));
  }

  /** The status of one member, asked directly (no failover): null when it does not answer. */
  async memberStatus(
    ep: Endpoint,
  ): Promise<{ version: string; leader: string; memberId: string; revision: string } | null> {
    try {
      const r = await this.once(ep, "/v3/maintenance/status", {});
      return {
        version: String(r.version ?? ""),
        leader: String(r.leader ?? "0"),
        memberId: String(r.header?.member_id ?? ""),
        revision: String(r.header?.revision ?? "0"),
      };
    } catch {
      return null;
    }
  }

  /**
   * Watch every key under `prefix` from `fromRevision`; `onEvent` gets each batch's revision.
   * Returns a stop function. The stream moves to the next member when one goes away.
   */
  watch(
    prefix: string,
    fromRevision: string,
    onEvent: (revision: string) => void,
    onError: (e: Error) => void,
  ): () => void {
    let stopped = false;
    let current: http.ClientRequest | null = null;
    let next = BigInt(fromRevision);
    let at = this.preferred;
    let failures = 0;
    const open = () => {
      if (stopped) return;
      const ep = this.endpoints[at % this.endpoints.length]!;
      const body = JSON.stringify({
        create_request: { key: b64(prefix), range_end: b64(prefixEnd(prefix)), start_revision: String(next) },
      });
      const req = http.request(
        {
          host: ep.host,
          port: ep.port,
          path: "/v3/watch",
          method: "POST",
          headers: { "content-type": "application/json" },
        },
        (res) => {
          let buf = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buf += chunk;
            for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
              const line = buf.slice(0, nl).trim();
              buf = buf.slice(nl + 1);
              if (line === "") continue;
              try {
                const msg = JSON.parse(line).result;
                failures = 0;
                if (msg?.events?.length) {
                  const rev = String(msg.header?.revision ?? "0");
                  next = BigInt(rev) + 1n;
                  onEvent(rev);
                }
              } catch {}
            }
          });
          res.on("end", retry);
          res.on("error", retry);
        },
      );
      req.on("error", retry);
      req.end(body);
      current = req;
    };
    const retry = () => {
      if (stopped) return;
      current?.destroy();
      at++;
      if (++failures > this.endpoints.length * 3)
        return onError(new CoordinatorError(`watch on ${this.label} lost every member`));
      setTimeout(open, 200);
    };
    open();
    return () => {
      stopped = true;
      current?.destroy();
    };
  }
}
