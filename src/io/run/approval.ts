// Approval records (docs/formats.md#approvals): consent bound to one exact runtime oracle, stored outside
// the repository in an owner-private directory and read fail-closed (no links, no swaps).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { UsageError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/ledger/digest.ts";
import { STRAY_TEMP_AGE_MS, sweepStrayTemps, writeAtomic } from "../fs.ts";
import { LockTimeoutError, pidAlive, recoverIfGone, sweepLockDirOnce, sweepLockLitter, withLockFile } from "../lock.ts";
import { isInside } from "../../core/workspace/inside.ts";
import { oracleSignature, type RuntimeOracle } from "../../core/run/oracle.ts";
import type { Env } from "./shell.ts";
import { KbzError } from "../../core/errors.ts";
import { approvalRecord, verify } from "../../core/trace.ts";
import { keepOracle, type Kept } from "./kept.ts";
import { readPrivate } from "./private.ts";

export const MAX_APPROVAL_BYTES = 256 * 1024;
const LOCK_TIMEOUT_MS = 10_000;
const RECORD_NAME = /^[0-9a-f]{64}\.json$/;

/** Anything that makes the store untrustworthy. The caller reports it and exits 2. */
export class ApprovalStoreError extends KbzError {
  constructor(message: string, file?: string) {
    super(message, {
      code: "approval-store",
      file,
      hint: "fix the approval directory's owner and permissions (0700, yours), or set UNLAZY_APPROVAL_DIR",
    });
  }
}

export interface ApprovalRecord {
  schema: 1;
  file: string;
  gate: string;
  signature: string;
  oracle: RuntimeOracle;
  approvedAt: string;
  /** kbz's addition: how the person gave it (terminal, dashboard), or "agent" under the agent policy. */
  given?: string;
  /** kbz's addition (issue 39): the approved bytes of each bound file inside the root (io/run/kept.ts). */
  kept?: Kept;
}

/** UNLAZY_APPROVAL_DIR, else ~/.unlazy/approved, as an absolute path. */
export function approvalDirFor(env: Env): string {
  return path.resolve(env.UNLAZY_APPROVAL_DIR || path.join(os.homedir(), ".unlazy", "approved"));
}

/** The lexical check done before anything runs: a store inside the repo is a usage error. */
export function assertStoreOutside(dir: string, roots: string[]): void {
  if (roots.some((r) => isInside(r, dir)))
    throw new UsageError("UNLAZY_APPROVAL_DIR must be outside the repository root");
}

export function recordName(file: string, gateId: string, signature: string): string {
  return `${sha256Hex(`${path.resolve(file)}\0${gateId}\0${signature}`)}.json`;
}

interface StoreIdentity {
  path: string; // canonical
  dev: bigint;
  ino: bigint;
}

function euid(): number | null {
  return typeof process.geteuid === "function" ? process.geteuid() : null;
}

function assertPrivate(p: string, st: fs.BigIntStats, kind: "directory" | "file"): void {
  if (st.isSymbolicLink() || (kind === "directory" ? !st.isDirectory() : !st.isFile())) {
    throw new ApprovalStoreError(`must be a real ${kind}`, p);
  }
  const uid = euid();
  if (uid !== null && st.uid !== BigInt(uid)) throw new ApprovalStoreError("must be owned by the current user", p);
  if (process.platform !== "win32" && (st.mode & 0o077n) !== 0n) {
    throw new ApprovalStoreError("must not grant group or other permissions", p);
  }
}

function lstatBig(p: string): fs.BigIntStats | null {
  try {
    return fs.lstatSync(p, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new ApprovalStoreError(`cannot inspect: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, p);
  }
}

/** An approval store bound to one directory and one canonical repository root. */
export class ApprovalStore {
  constructor(
    readonly dir: string,
    private readonly canonicalRoot: string | null,
  ) {}

  /** Validate the directory (optionally creating it); null when it does not exist. */
  private open(create: boolean): StoreIdentity | null {
    if (create) {
      try {
        fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      } catch (e) {
        throw new ApprovalStoreError(
          `cannot create: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          this.dir,
        );
      }
    }
    const st = lstatBig(this.dir);
    if (!st) return null;
    assertPrivate(this.dir, st, "directory");
    const canonical = fs.realpathSync(this.dir);
    if (this.canonicalRoot && isInside(this.canonicalRoot, canonical)) {
      throw new ApprovalStoreError("approval directory resolves inside the repository root", canonical);
    }
    const cst = lstatBig(canonical);
    if (!cst) throw new ApprovalStoreError("approval directory vanished", canonical);
    assertPrivate(canonical, cst, "directory");
    return { path: canonical, dev: cst.dev, ino: cst.ino };
  }

  private assertUnchanged(store: StoreIdentity): void {
    const now = lstatBig(store.path);
    if (!now) throw new ApprovalStoreError("approval directory vanished", store.path);
    assertPrivate(store.path, now, "directory");
    if (now.dev !== store.dev || now.ino !== store.ino) {
      throw new ApprovalStoreError("approval directory changed during use", store.path);
    }
  }

  /** Read one record fail-closed; null when it does not exist. */
  private readRecordText(file: string): string | null {
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") {
        if (lstatBig(file)) throw new ApprovalStoreError("approval record changed while it was opened", file);
        return null;
      }
      if (code === "ELOOP") throw new ApprovalStoreError("refusing linked or replaced approval record", file);
      throw new ApprovalStoreError(
        `cannot open approval record: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        file,
      );
    }
    try {
      const opened = fs.fstatSync(fd, { bigint: true });
      assertPrivate(file, opened, "file");
      const named = lstatBig(file);
      if (!named) throw new ApprovalStoreError("approval record vanished while it was read", file);
      assertPrivate(file, named, "file");
      if (opened.size > BigInt(MAX_APPROVAL_BYTES))
        throw new ApprovalStoreError(`approval record exceeds ${MAX_APPROVAL_BYTES} bytes`, file);
      if (opened.nlink !== 1n || named.dev !== opened.dev || named.ino !== opened.ino) {
        throw new ApprovalStoreError("refusing linked or replaced approval record", file);
      }
      const text = fs.readFileSync(fd, "utf8");
      const after = lstatBig(file);
      if (
        !after ||
        after.dev !== opened.dev ||
        after.ino !== opened.ino ||
        after.size !== opened.size ||
        after.mtimeNs !== opened.mtimeNs
      ) {
        throw new ApprovalStoreError("approval record changed while it was read", file);
      }
      return text;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** True only for an intact record of exactly this ledger, gate and oracle. */
  isApproved(file: string, gateId: string, oracle: RuntimeOracle): boolean {
    const store = this.open(false);
    if (!store) return false;
    this.sweepKbzOnce(store);
    const signature = oracleSignature(oracle);
    const text = this.readRecordText(path.join(store.path, recordName(file, gateId, signature)));
    if (text === null) return false;
    let value: Partial<ApprovalRecord>;
    try {
      value = JSON.parse(text);
    } catch {
      return false;
    }
    this.assertUnchanged(store);
    // The record is one trace record (core/trace.ts): consent for this subject, holding while the oracle's signature is the same.
    const ok =
      !!value &&
      typeof value.file === "string" &&
      typeof value.gate === "string" &&
      typeof value.signature === "string" &&
      value.file === path.resolve(file) &&
      value.gate === gateId &&
      verify(approvalRecord(value.file, value.gate, value.signature), { oracle: signature }).status === "valid";
    // A writer killed after its rename but before its unlock leaves the lock beside a good record.
    if (ok) recoverIfGone(path.join(store.path, `${recordName(file, gateId, signature)}.lock`));
    return ok;
  }

  /**
   * Write the record under its sibling lock `<record>.json.lock`. A lock whose holder is gone
   * (same host, pid dead) is recovered like the workspace locks; temp files and lock litter of
   * crashed writers are removed first. Returns the record path.
   */
  async record(file: string, gateId: string, oracle: RuntimeOracle, given?: string): Promise<string> {
    const store = this.open(true)!;
    this.sweep(store);
    // The approved bytes first (io/run/kept.ts): over the cap, nothing at all is written.
    const kept = this.canonicalRoot ? keepOracle(store.path, this.canonicalRoot, oracle, process.env) : null;
    const target = path.join(store.path, recordName(file, gateId, oracleSignature(oracle)));
    const lock = `${target}.lock`;
    try {
      return await withLockFile(
        lock,
        target,
        () => {
          const value: ApprovalRecord = {
            schema: 1,
            file: path.resolve(file),
            gate: gateId,
            signature: oracleSignature(oracle),
            oracle,
            approvedAt: new Date().toISOString(),
            ...(given ? { given } : {}),
            ...(kept && Object.keys(kept).length > 0 ? { kept } : {}),
          };
          writeAtomic(target, JSON.stringify(value, null, 2) + "\n", { mode: 0o600 });
          // The gate's latest approval (not a probe's): what an approved-oracle run judges against.
          if (!oracle.sandbox?.view) writeLatest(store.path, file, gateId, value.signature);
          this.assertUnchanged(store);
          return target;
        },
        { timeoutMs: LOCK_TIMEOUT_MS },
      );
    } catch (e) {
      if (e instanceof ApprovalStoreError) throw e;
      if (e instanceof LockTimeoutError) throw new ApprovalStoreError(`approval lock: ${e.message}`);
      throw new ApprovalStoreError((e as Error).message);
    }
  }

  /** The record of one approval by its signature, or null (absent, unreadable). */
  get(file: string, gateId: string, signature: string): ApprovalRecord | null {
    const store = this.open(false);
    if (!store) return null;
    try {
      const text = this.readRecordText(path.join(store.path, recordName(file, gateId, signature)));
      const r = text === null ? null : parseRecord(text);
      return r && r.file === path.resolve(file) && r.gate === gateId ? r : null;
    } catch {
      return null;
    }
  }

  /** Remove crashed writers' temp files and lock litter; returns the names removed. */
  private sweep(store: StoreIdentity): string[] {
    const removed = [...sweepStrayTemps(store.path, pidAlive), ...sweepLockLitter(store.path)];
    // Locks of gone holders are recovered when someone waits on them; prune clears the rest.
    return removed;
  }

  private kbzSwept = false;

  /**
   * Issue 42 item 4: the first use of the store in a process sweeps what killed writers left in
   * kbz's own folders of it (`kbz/latest`, `kbz/attest`): temp files of writers gone and older
   * than a live one's ever is, staged owner records, moved-aside locks and dead owners' locks. A
   * write there takes them only when the same gate is approved or attested again, which may be never.
   */
  private sweepKbzOnce(store: StoreIdentity): void {
    if (this.kbzSwept) return;
    this.kbzSwept = true;
    for (const sub of ["latest", "attest"]) {
      const dir = path.join(store.path, "kbz", sub);
      if (!fs.existsSync(dir)) continue;
      sweepStrayTemps(dir, pidAlive, Date.now() - STRAY_TEMP_AGE_MS);
      sweepLockDirOnce(dir);
    }
  }

  /** Remove stray temp files, lock litter and locks whose holder is gone (approvals prune). */
  sweepLitter(): string[] {
    const store = this.open(false);
    if (!store) return [];
    const removed = this.sweep(store);
    for (const name of fs.readdirSync(store.path)) {
      if (!/^[0-9a-f]{64}\.json\.lock$/.test(name)) continue;
      if (recoverIfGone(path.join(store.path, name))) removed.push(name);
    }
    return removed;
  }

  /** Every record in the store; unreadable ones carry their problem instead of data. */
  list(): StoredApproval[] {
    const store = this.open(false);
    if (!store) return [];
    const out: StoredApproval[] = [];
    for (const name of fs.readdirSync(store.path).sort()) {
      if (!RECORD_NAME.test(name)) continue;
      const file = path.join(store.path, name);
      try {
        const text = this.readRecordText(file);
        if (text === null) continue;
        const record = parseRecord(text);
        out.push(
          record
            ? { name, path: file, record, problem: null }
            : { name, path: file, record: null, problem: "not a valid approval record" },
        );
      } catch (e) {
        out.push({ name, path: file, record: null, problem: (e as Error).message });
      }
    }
    this.assertUnchanged(store);
    return out;
  }

  /** Remove records by name after re-validating the store; returns the names removed. */
  remove(names: string[]): string[] {
    const store = this.open(false);
    if (!store) return [];
    const removed: string[] = [];
    for (const name of names) {
      if (!RECORD_NAME.test(name)) continue;
      this.assertUnchanged(store);
      try {
        fs.unlinkSync(path.join(store.path, name));
        removed.push(name);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new ApprovalStoreError((e as Error).message);
      }
    }
    return removed;
  }
}

export interface StoredApproval {
  name: string;
  path: string;
  record: ApprovalRecord | null;
  problem: string | null;
}

function parseRecord(text: string): ApprovalRecord | null {
  let v: any;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const o = v?.oracle;
  const ok =
    v &&
    v.schema === 1 &&
    typeof v.file === "string" &&
    typeof v.gate === "string" &&
    typeof v.signature === "string" &&
    typeof v.approvedAt === "string" &&
    o &&
    typeof o.check === "string" &&
    typeof o.expect === "string" &&
    typeof o.cwd === "string";
  return ok && oracleSignature(o) === v.signature ? (v as ApprovalRecord) : null;
}

/** `<store>/kbz/latest/<sha256(ledger, gate)>`: the signature of the gate's latest approval (not a probe's). */
function latestFile(store: string, file: string, gateId: string): string {
  return path.join(store, "kbz", "latest", sha256Hex(`${path.resolve(file)}\0${gateId}`));
}

function writeLatest(store: string, file: string, gateId: string, signature: string): void {
  const dir = path.join(store, "kbz", "latest");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeAtomic(latestFile(store, file, gateId), signature, { mode: 0o600 });
}

/** The signature of the gate's latest approval, or null (none kept, or the store is not private). */
export function latestApproval(store: string, file: string, gateId: string): string | null {
  const text = readPrivate(latestFile(store, file, gateId), 128)?.toString("utf8") ?? null;
  return text && /^[0-9a-f]{64}$/.test(text) ? text : null;
}
