// The etcd adapter. Claims are one transaction that compares the revision of the repository's
// lease prefix (no key under it modified after the read the conflict test used) and puts the
// claim attached to an etcd lease with a TTL; the holder keeps that lease alive (./keeper.ts),
// so a crashed machine's claims vanish when etcd's clock runs the TTL out. Waves are a
// compare-and-swap on the scope's dispatch key with the audit line written in the same
// transaction; the view is one read-only transaction, so every reader sees one revision.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { UsageError } from "../../../core/errors.ts";
import { claimConflicts, normalizeClaimGlobs, type ClaimResult } from "../../dispatch/leases.ts";
import { INVALID_OWNER, type InvalidLease, type Lease, type LeaseRecord } from "../../../core/dispatch/lease-record.ts";
import { checkSessionId } from "../../dispatch/session.ts";
import { statusLine } from "../../dispatch/statuslog.ts";
import type { CommittedTransition } from "../../dispatch/transition.ts";
import {
  applyDispatchAll,
  DispatchActionError,
  DispatchStateError,
  emptyDispatch,
  idMessage,
  parseDispatch,
  serializeDispatch,
  waveLine,
} from "../../../core/dispatch/waves.ts";
import type { LoadedDispatch } from "../../read.ts";
import type { RowState } from "../../../core/plan/table.ts";
import { randomHex, sha256Hex } from "../../../core/util/hash.ts";
import { isValidId, SCOPE_ID_MESSAGE } from "../../../core/workspace/ids.ts";
import { ensureRealDir, writeAtomic } from "../../fs.ts";
import { normalizeOwnsPath } from "../../../core/workspace/paths.ts";
import { CoordinatorError, EtcdClient, parseEndpoints, prefixEnd, rangeKvs, type KeyValue } from "./client.ts";
import { keysFor, type Keys } from "./keys.ts";
import type { CoordinationView, LostLease, ReleaseResult, Coordination } from "../port.ts";

const ROW_STATES = new Set<RowState>(["WAITING", "READY", "IN-FLIGHT", "VERIFIED", "ABANDONED"]);
const CLAIM_ATTEMPTS = 200;

export interface EtcdCoordinationOptions {
  root: string;
  url: string;
  repository: string;
  ttl: number;
  /**
   * Who keeps a claim's lease alive: "keeper" spawns `kbz coordinator keep` (a CLI claim is a
   * short process), "inline" renews from this process while it lives (a long-lived caller).
   */
  keepAlive: "keeper" | "inline";
  /** The command that runs kbz (for the keeper); default: this executable. */
  kbzCommand?: string[];
  timeoutMs?: number;
  retryMs?: number;
}

/** What a lease key holds (docs/formats.md). */
interface LeaseValue {
  scope: string;
  leaf: string;
  globs: string[];
  holder: { host: string; pid: number; token: string };
  claimedAt: string;
  ttl: number;
}

/** This clone's record of a claim it holds: how "lost while held" is noticed at the next command. */
export interface HeldRecord {
  schema: 1;
  repository: string;
  coordinator: string;
  scope: string;
  leaf: string;
  globs: string[];
  key: string;
  lease: string;
  token: string;
  claimedAt: string;
  keeperPid: number | null;
}

export function heldDir(root: string): string {
  return path.join(root, ".unlazy", "locks");
}

export function heldFile(root: string, scope: string, leaf: string): string {
  return path.join(heldDir(root), `${sha256Hex(`${scope}::${leaf}`).slice(0, 24)}.held`);
}

export function readHeld(root: string, repository: string): HeldRecord[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(heldDir(root))
      .filter((n) => n.endsWith(".held"))
      .sort();
  } catch {
    return [];
  }
  const out: HeldRecord[] = [];
  for (const n of names) {
    try {
      const r = JSON.parse(fs.readFileSync(path.join(heldDir(root), n), "utf8")) as HeldRecord;
      if (r && r.schema === 1 && r.repository === repository && typeof r.key === "string") out.push(r);
    } catch {}
  }
  return out;
}

function invalidKv(kv: KeyValue, problem: string): InvalidLease {
  return { invalid: true, scope: INVALID_OWNER, leaf: kv.key, globs: ["**"], file: `etcd:${kv.key}`, problem };
}

/** A lease key as a record; anything malformed owns `**` (it blocks every claim, as a bad file does). */
export function leaseRecord(keys: Keys, kv: KeyValue): LeaseRecord & { token?: string } {
  let v: LeaseValue;
  try {
    v = JSON.parse(kv.value);
  } catch {
    return invalidKv(kv, "not valid JSON");
  }
  if (typeof v !== "object" || v === null) return invalidKv(kv, "not a JSON object");
  if (typeof v.scope !== "string" || !isValidId(v.scope)) return invalidKv(kv, "scope is not a valid id");
  if (typeof v.leaf !== "string" || !isValidId(v.leaf)) return invalidKv(kv, "leaf is not a valid id");
  if (!Array.isArray(v.globs) || v.globs.length === 0) return invalidKv(kv, "globs must be a non-empty array");
  for (const g of v.globs) {
    const n = typeof g === "string" ? normalizeOwnsPath(g) : null;
    if (!n || !n.ok || n.glob !== g) return invalidKv(kv, `glob is not normalised: ${String(g)}`);
  }
  if (kv.key !== keys.lease(v.scope, v.leaf)) return invalidKv(kv, `key does not match ${v.scope}/${v.leaf}`);
  const pid = Number.isInteger(v.holder?.pid) ? v.holder.pid : null;
  return {
    invalid: false,
    scope: v.scope,
    leaf: v.leaf,
    globs: [...v.globs],
    pid,
    file: `etcd:${kv.key}`,
    token: typeof v.holder?.token === "string" ? v.holder.token : undefined,
  };
}

function checkIds(scope: string, leaf: string | null): void {
  if (!isValidId(scope)) throw new UsageError(SCOPE_ID_MESSAGE);
  if (leaf !== null && !isValidId(leaf))
    throw new UsageError("leaf must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/ and cannot be . or ..");
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The executable and script that run kbz, for spawning the keeper. */
function selfCommand(): string[] {
  const script = process.argv[1];
  if (script && script !== process.execPath && !script.startsWith("/$bunfs") && fs.existsSync(script))
    return [process.execPath, script];
  return [process.execPath];
}

/**
 * Stop this clone's keeper of a released claim now instead of at its next renewal. Only a
 * process whose command line is that lease's keeper is signalled (a reused pid is left alone).
 */
function stopKeeper(h: HeldRecord): void {
  if (!h.keeperPid) return;
  let cmdline: string;
  try {
    cmdline = fs.readFileSync(`/proc/${h.keeperPid}/cmdline`, "utf8");
  } catch {
    return;
  }
  const args = cmdline.split("\0");
  if (!args.includes("keep") || args[args.indexOf("--lease") + 1] !== h.lease) return;
  try {
    process.kill(h.keeperPid, "SIGTERM");
  } catch {}
}

export class EtcdCoordination implements Coordination {
  readonly kind = "etcd" as const;
  readonly client: EtcdClient;
  readonly keys: Keys;
  private readonly inline = new Map<string, ReturnType<typeof setInterval>>();
  private readonly watchers = new Set<() => void>();

  constructor(readonly o: EtcdCoordinationOptions) {
    this.client = new EtcdClient(parseEndpoints(o.url), { timeoutMs: o.timeoutMs, retryMs: o.retryMs });
    this.keys = keysFor(o.repository);
  }

  get label(): string {
    return this.client.label;
  }

  get root(): string {
    return this.o.root;
  }

  // ---- reads ------------------------------------------------------------------------------

  async view(opts: { logScope?: string | null } = {}): Promise<CoordinationView & { revision: string }> {
    const k = this.keys;
    const ops = [k.dispatches, k.leases, k.plans, k.sessions, ...(opts.logScope ? [k.log(opts.logScope)] : [])].map(
      (p) => ({ range: { key: p, rangeEnd: prefixEnd(p) } }),
    );
    const t = await this.client.txn([], ops);
    const [dispatches, leases, plans, sessions, logs] = t.responses.map(rangeKvs);
    const held = readHeld(this.o.root, this.o.repository);
    return buildView(
      k,
      t.revision,
      { dispatches: dispatches!, leases: leases!, plans: plans!, sessions: sessions!, logs: logs ?? [] },
      opts.logScope ?? null,
      held,
    );
  }

  // ---- leases -----------------------------------------------------------------------------

  async claim(scope: string, leaf: string, rawGlobs: string[]): Promise<ClaimResult> {
    checkIds(scope, leaf);
    const globs = normalizeClaimGlobs(rawGlobs);
    const k = this.keys;
    const key = k.lease(scope, leaf);
    const token = randomHex(12);
    const claimedAt = new Date().toISOString();
    const value: LeaseValue = {
      scope,
      leaf,
      globs,
      holder: { host: os.hostname(), pid: process.pid, token },
      claimedAt,
      ttl: this.o.ttl,
    };
    let leaseId: string | null = null;
    const lease: Lease = { invalid: false, scope, leaf, globs, pid: process.pid, file: `etcd:${key}` };
    try {
      for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
        const read = await this.client.prefix(k.leases);
        const held = read.kvs.map((kv) => leaseRecord(k, kv));
        // A transaction whose answer was lost (a member died mid-request) may have committed.
        if (held.some((h) => !h.invalid && h.token === token)) return this.granted(lease, leaseId!, token, claimedAt);
        const conflicts = claimConflicts(scope, leaf, globs, held);
        if (conflicts.length > 0) {
          if (leaseId) await this.client.revoke(leaseId).catch(() => {});
          leaseId = null;
          return { ok: false, conflicts, notes: [] };
        }
        leaseId ??= (await this.client.grant(this.o.ttl)).id;
        const t = await this.client.txn(
          // No key under the lease prefix was created or changed after the read we tested.
          [
            {
              key: k.leases,
              rangeEnd: prefixEnd(k.leases),
              target: "MOD",
              result: "LESS",
              modRevision: String(BigInt(read.revision) + 1n),
            },
          ],
          [{ put: { key, value: JSON.stringify(value), lease: leaseId } }],
        );
        if (t.succeeded) return this.granted(lease, leaseId, token, claimedAt);
        await sleep(Math.floor(Math.random() * Math.min(50, 2 + attempt * 3)));
      }
      throw new CoordinatorError(
        `claim of ${scope}/${leaf} kept losing races for the lease prefix after ${CLAIM_ATTEMPTS} attempts; try again`,
      );
    } catch (e) {
      // Never leave a granted-but-unused lease behind; etcd would expire it anyway.
      if (leaseId && !(await this.holds(key, token))) await this.client.revoke(leaseId).catch(() => {});
      throw e;
    }
  }

  private async holds(key: string, token: string): Promise<boolean> {
    try {
      const r = await this.client.range(key);
      return r.kvs.some(
        (kv) => leaseRecord(this.keys, kv) && (leaseRecord(this.keys, kv) as { token?: string }).token === token,
      );
    } catch {
      return false;
    }
  }

  private async granted(lease: Lease, leaseId: string, token: string, claimedAt: string): Promise<ClaimResult> {
    const notes: string[] = [];
    const file = heldFile(this.o.root, lease.scope, lease.leaf);
    const record: HeldRecord = {
      schema: 1,
      repository: this.o.repository,
      coordinator: this.label,
      scope: lease.scope,
      leaf: lease.leaf,
      globs: lease.globs,
      key: this.keys.lease(lease.scope, lease.leaf),
      lease: leaseId,
      token,
      claimedAt,
      keeperPid: null,
    };
    if (this.o.keepAlive === "inline") {
      const timer = setInterval(
        () => void this.client.keepAlive(leaseId).catch(() => {}),
        Math.max(500, (this.o.ttl * 1000) / 3),
      );
      (timer as { unref?: () => void }).unref?.();
      this.inline.set(leaseId, timer);
    } else {
      record.keeperPid = this.spawnKeeper(leaseId, file);
    }
    try {
      ensureRealDir(heldDir(this.o.root), this.o.root);
      writeAtomic(file, JSON.stringify(record, null, 2) + "\n", { root: this.o.root, mode: 0o600 });
    } catch (e) {
      notes.push(
        `could not record the claim locally (${(e as Error).message}); a lost lease will not be reported at the next command`,
      );
    }
    return { ok: true, lease, notes };
  }

  private spawnKeeper(leaseId: string, file: string): number | null {
    // Loaded only here: the keeper is the one child process a claim starts.
    const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
    const cmd = this.o.kbzCommand ?? selfCommand();
    const child = spawn(
      cmd[0]!,
      [
        ...cmd.slice(1),
        "coordinator",
        "keep",
        "--lease",
        leaseId,
        "--ttl",
        String(this.o.ttl),
        "--held",
        file,
        "--coordinator",
        this.o.url,
      ],
      {
        detached: true,
        stdio: "ignore",
        cwd: this.o.root,
        env: { ...process.env, KBZ_COORDINATOR: this.o.url },
      },
    );
    child.unref();
    return child.pid ?? null;
  }

  async release(scope: string, leaf: string | null): Promise<ReleaseResult> {
    checkIds(scope, leaf);
    const k = this.keys;
    const read =
      leaf === null ? await this.client.prefix(k.scopeLeases(scope)) : await this.client.range(k.lease(scope, leaf));
    const released: Lease[] = [];
    for (const kv of read.kvs) {
      const r = leaseRecord(k, kv);
      if (r.invalid) continue;
      let gone: boolean;
      // A lease already gone (a retried revoke, an expiry in between) took the key with it.
      if (kv.lease !== "0")
        gone =
          (await this.client.revoke(kv.lease)).existed ||
          (await this.client.range(kv.key)).kvs.every((now) => now.lease !== kv.lease);
      else
        gone = (
          await this.client.txn(
            [{ key: kv.key, target: "MOD", result: "EQUAL", modRevision: kv.modRevision }],
            [{ del: { key: kv.key } }],
          )
        ).succeeded;
      if (gone)
        released.push({ invalid: false, scope: r.scope, leaf: r.leaf, globs: r.globs, pid: r.pid, file: r.file });
      this.stopInline(kv.lease);
    }
    const alreadyLost: LostLease[] = [];
    for (const h of readHeld(this.o.root, this.o.repository)) {
      if (h.scope !== scope || (leaf !== null && h.leaf !== leaf)) continue;
      if (!read.kvs.some((kv) => kv.key === h.key && kv.lease === h.lease))
        alreadyLost.push({
          scope: h.scope,
          leaf: h.leaf,
          globs: h.globs,
          reason: "expired or revoked at the coordinator before this release",
        });
      fs.rmSync(heldFile(this.o.root, h.scope, h.leaf), { force: true });
      this.stopInline(h.lease);
      stopKeeper(h);
    }
    return { released, alreadyLost, notes: [] };
  }

  private stopInline(leaseId: string): void {
    const t = this.inline.get(leaseId);
    if (t) clearInterval(t);
    this.inline.delete(leaseId);
  }

  async removeInvalid(): Promise<{ removed: InvalidLease[]; notes: string[] }> {
    const read = await this.client.prefix(this.keys.leases);
    const removed: InvalidLease[] = [];
    for (const kv of read.kvs) {
      const r = leaseRecord(this.keys, kv);
      if (!r.invalid) continue;
      const t = await this.client.txn(
        [{ key: kv.key, target: "MOD", result: "EQUAL", modRevision: kv.modRevision }],
        [{ del: { key: kv.key } }],
      );
      if (t.succeeded) removed.push(r);
    }
    return { removed, notes: [] };
  }

  // ---- waves, log, session, leaf states ---------------------------------------------------

  async commitDispatch(
    scope: string,
    action: Parameters<Coordination["commitDispatch"]>[1],
    opts: Parameters<Coordination["commitDispatch"]>[2] = {},
  ): Promise<CommittedTransition> {
    if (!isValidId(scope)) throw new DispatchActionError(idMessage("scope"));
    const key = this.keys.dispatch(scope);
    const now = opts.now ?? (() => new Date());
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      const read = await this.client.range(key);
      const kv = read.kvs[0];
      const state = kv ? loadText(kv.value).state : emptyDispatch();
      const t = applyDispatchAll(state, Array.isArray(action) ? action : [action], now());
      const at = new Date().toISOString();
      const base = this.logKey(scope); // one random tail, then the action's index: the events keep their order
      const r = await this.client.txn(
        [
          kv
            ? { key, target: "MOD", result: "EQUAL", modRevision: kv.modRevision }
            : { key, target: "CREATE", result: "EQUAL", createRevision: "0" },
        ],
        [
          { put: { key, value: serializeDispatch(t.state) } },
          ...t.events.map((e, i) => ({
            put: { key: `${base}${String(i).padStart(2, "0")}`, value: statusLine(`${at} ${e}`).trimEnd() },
          })),
        ],
      );
      if (r.succeeded) return { ...t, auditWarning: null, notes: [] };
      await sleep(Math.floor(Math.random() * 20));
    }
    throw new CoordinatorError(`dispatch state of ${scope} kept changing under this transition; try again`);
  }

  private logKey(scope: string): string {
    return `${this.keys.log(scope)}${String(Date.now()).padStart(13, "0")}-${randomHex(4)}`;
  }

  async appendStatus(scope: string, text: string): Promise<void> {
    if (!isValidId(scope)) throw new UsageError(SCOPE_ID_MESSAGE);
    await this.client.put(this.logKey(scope), statusLine(text).trimEnd());
  }

  async bindSession(scope: string, id: string): Promise<string> {
    if (!isValidId(scope)) throw new UsageError(SCOPE_ID_MESSAGE);
    const stored = checkSessionId(id);
    await this.client.put(this.keys.session(scope), stored);
    return stored;
  }

  /** The cluster holds the state; PLAN.md (`_editPlan`) is left as it is. */
  async setLeafState(
    scope: string,
    leaf: string,
    state: RowState,
    _editPlan?: () => void | Promise<void>,
  ): Promise<void> {
    checkIds(scope, leaf);
    if (!ROW_STATES.has(state)) throw new UsageError(`state must be one of ${[...ROW_STATES].join(", ")}`);
    await this.client.put(`${this.keys.plan(scope)}${leaf}`, state);
  }

  watch(onChange: () => void): () => void {
    let stop: (() => void) | null = null;
    let stopped = false;
    void this.client.range(this.keys.root, undefined).then(
      (r) => {
        if (stopped) return;
        stop = this.client.watch(
          this.keys.root,
          String(BigInt(r.revision) + 1n),
          () => onChange(),
          () => onChange(),
        );
        // Anything that changed between the caller's view and this watch's start revision.
        onChange();
      },
      () => onChange(),
    );
    const off = () => {
      stopped = true;
      stop?.();
      this.watchers.delete(off);
    };
    this.watchers.add(off);
    return off;
  }

  close(): void {
    for (const t of this.inline.values()) clearInterval(t);
    this.inline.clear();
    for (const w of [...this.watchers]) w();
    this.client.close();
  }
}

/** A dispatch value parsed like the file (the line points into the stored text). */
function loadText(text: string): LoadedDispatch {
  try {
    return { state: parseDispatch(text), text };
  } catch (e) {
    if (e instanceof DispatchStateError) throw new DispatchStateError(e.message, e.wave, waveLine(text, e.wave));
    throw e;
  }
}

interface Ranges {
  dispatches: KeyValue[];
  leases: KeyValue[];
  plans: KeyValue[];
  sessions: KeyValue[];
  logs: KeyValue[];
}

function buildView(
  k: Keys,
  revision: string,
  r: Ranges,
  logScope: string | null,
  held: HeldRecord[],
): CoordinationView & { revision: string } {
  const leases = r.leases.map((kv) => leaseRecord(k, kv));
  const byKey = new Map(r.leases.map((kv) => [kv.key, kv]));
  const dispatch = new Map(r.dispatches.map((kv) => [kv.key, kv.value]));
  const sessions = new Map(r.sessions.map((kv) => [kv.key, kv.value]));
  return {
    kind: "etcd",
    revision,
    leases: () => leases.map(({ token: _t, ...rest }: LeaseRecord & { token?: string }) => rest as LeaseRecord),
    dispatchText: (scope) => dispatch.get(k.dispatch(scope)) ?? null,
    dispatch: (scope) => {
      const text = dispatch.get(k.dispatch(scope));
      return text === undefined ? { state: emptyDispatch(), text: null } : loadText(text);
    },
    session: (scope) => sessions.get(k.session(scope)) ?? null,
    statusLog: (scope, max = 500) => {
      if (scope !== logScope) throw new Error(`the coordinator view was read without the status log of ${scope}`);
      return r.logs.slice(-max).map((kv) => kv.value);
    },
    leafStates: (scope) => {
      const p = k.plan(scope);
      const out = new Map<string, RowState>();
      for (const kv of r.plans)
        if (kv.key.startsWith(p) && ROW_STATES.has(kv.value as RowState))
          out.set(kv.key.slice(p.length), kv.value as RowState);
      return out;
    },
    lost: (scope) => {
      const out: LostLease[] = [];
      for (const h of held) {
        if (scope !== null && h.scope !== scope) continue;
        const kv = byKey.get(h.key);
        const current = kv ? leaseRecord(k, kv) : null;
        if (kv && current && !current.invalid && current.token === h.token) continue;
        out.push({
          scope: h.scope,
          leaf: h.leaf,
          globs: h.globs,
          reason:
            current && !current.invalid
              ? `claimed since by another holder (pid ${current.pid ?? "?"})`
              : "its etcd lease expired or was revoked (no keep-alive within the TTL)",
        });
      }
      return out;
    },
  };
}
