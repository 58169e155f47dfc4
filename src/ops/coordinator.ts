// `kbz coordinator` as use cases: the etcd cluster behind --coordinator (who answers, every lease
// held with its TTL), moving a scope's coordination state between the files and the cluster, and
// the lease keeper a claim starts. The etcd modules load only here, only when asked. Options in,
// data out; cli/coordinator.ts prints.
import { UsageError } from "../core/errors.ts";
import type { LostLease } from "../io/coordination/port.ts";
import { infra } from "./refused.ts";

type Env = Record<string, string | undefined>;

/** The configured etcd coordinator (--coordinator, KBZ_COORDINATOR, .kbz/settings.json); a usage error without one. */
export async function etcdConfig(root: string, url: string | undefined, env: Env, missing: string) {
  const { resolveCoordinator } = await import("../io/coordination/config.ts");
  const config = resolveCoordinator(root, url, env);
  if (config.kind !== "etcd") throw new UsageError(missing);
  return config;
}

type EtcdConfig = Awaited<ReturnType<typeof etcdConfig>>;

export interface Holder {
  scope: string;
  leaf: string;
  globs: string[];
  host: string | null;
  pid: number | null;
  ttl: number;
  grantedTtl: number;
  invalid: boolean;
}

export interface ClusterStatus {
  label: string;
  members: { endpoint: string; reachable: boolean; leader: boolean; version: string | null; revision: string | null }[];
  up: number;
  quorum: boolean;
  holders: Holder[];
  lost: LostLease[];
}

async function holdersOf(coord: import("../io/coordination/etcd/coordination.ts").EtcdCoordination): Promise<Holder[]> {
  const read = await coord.client.prefix(coord.keys.leases);
  const { leaseRecord } = await import("../io/coordination/etcd/coordination.ts");
  const out: Holder[] = [];
  for (const kv of read.kvs) {
    const r = leaseRecord(coord.keys, kv);
    let host: string | null = null;
    try {
      host = String(JSON.parse(kv.value).holder?.host ?? "") || null;
    } catch {}
    const t = kv.lease === "0" ? { ttl: -1, granted: 0 } : await coord.client.timeToLive(kv.lease);
    out.push({
      scope: r.scope,
      leaf: r.leaf,
      globs: r.globs,
      host,
      pid: r.invalid ? null : r.pid,
      ttl: t.ttl,
      grantedTtl: t.granted,
      invalid: r.invalid,
    });
  }
  return out;
}

/** `coordinator status`: each member's answer, and (with a quorum) every lease held and lost. */
export async function clusterStatus(root: string, config: EtcdConfig): Promise<ClusterStatus> {
  const { EtcdCoordination } = await import("../io/coordination/etcd/coordination.ts");
  const coord = new EtcdCoordination({
    root,
    url: config.url,
    repository: config.repository,
    ttl: config.ttl,
    keepAlive: "inline",
    timeoutMs: 2000,
  });
  try {
    const answers = await Promise.all(
      coord.client.endpoints.map(async (ep) => ({ ep, status: await coord.client.memberStatus(ep) })),
    );
    const up = answers.filter((a) => a.status !== null);
    const quorum = up.length > coord.client.endpoints.length / 2;
    const members = answers.map((a) => ({
      endpoint: `${a.ep.host}:${a.ep.port}`,
      reachable: a.status !== null,
      leader: a.status ? a.status.leader === a.status.memberId : false,
      version: a.status?.version ?? null,
      revision: a.status?.revision ?? null,
    }));
    const holders = quorum ? await infra(() => holdersOf(coord)) : [];
    const lost = quorum ? (await coord.view()).lost(null) : [];
    return { label: coord.label, members, up: up.length, quorum, holders, lost };
  } finally {
    coord.close();
  }
}

/** `coordinator import|export`: copy a scope's waves, status log, session and leaf states across. */
export async function moveScopeState(root: string, config: EtcdConfig, scope: string, direction: "import" | "export") {
  const { moveScope } = await import("../io/coordination/move.ts");
  return infra(() => moveScope(root, config, scope, direction));
}

/** `coordinator keep`: the keeper process a claim starts; renews the lease until the claim ends. */
export async function keepLeaseAlive(config: EtcdConfig, lease: string, ttl: number, heldFile: string): Promise<void> {
  const { keepLease } = await import("../io/coordination/etcd/keeper.ts");
  await keepLease({ url: config.url, lease, ttl, heldFile });
}
