// The current digests of every verdict record (core/trace.ts) that speaks for a set of ledgers:
// the records are read from their record files (.kbz/inputs/, .kbz/probes/, .kbz/oracles/, .kbz/failures/: one listing each,
// so a repository that never recorded one pays one failed open) as data, and the world they are
// checked against is one DigestWalk per read: every file hashed at most once (streamed, inside
// the root: io/inputs/records.ts digestFile), only when a verdict needs it. The pure builders
// (core/snapshot.ts, core/schedule/facts.ts) check the records with core/trace.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  failureRecord,
  inputsRecord,
  oracleFileName,
  oracleRecord,
  probeRecord,
  type FailureStored,
  type OracleStored,
  type InputsNow,
  type InputsStored,
  type ProbeStored,
  type TraceData,
  type TraceRecord,
  type World,
} from "../core/trace.ts";
import { isInside } from "../core/workspace/inside.ts";
import { DeadlineError } from "./deadline.ts";
import { readRecordFile, realOf, recordFileName } from "./recordFiles.ts";
import { expandInputs, inputsProblem } from "./inputs/expand.ts";
import { digestFile, INPUTS_DIR } from "./inputs/records.ts";
import { PROBES_DIR } from "./check/probeRecords.ts";
import { FAILURES_DIR } from "./check/failures.ts";
import { ORACLES_DIR } from "./oracle/records.ts";
import { oracleFiles } from "./oracle/binding.ts";
import { currentIdentity, filesUnchanged } from "./oracle/identity.ts";
import { approvalDirFor, latestApproval } from "./run/approval.ts";
import type { Gate } from "../core/ledger/model.ts";
import { ledgerBase } from "../core/workspace/inside.ts";

const RECORD_NAME = /^[0-9a-f]{24}\.json$/;

/**
 * The record files of `dir` that speak for `files`, as [ledger file, gates]. A record file is named
 * by its ledger's real path (io/inputs/records.ts inputRecordsPath); the ledgers come from discovery
 * under the canonical root, so their paths are their real paths (`real`: resolve them, for
 * ledgers named on the command line). The names are hashed only when the folder holds a record
 * file at all.
 */
function recordsIn(dir: string, files: readonly string[], real: boolean): [string, Record<string, unknown>][] {
  let listed: string[];
  try {
    listed = fs.readdirSync(dir).filter((n) => RECORD_NAME.test(n));
  } catch {
    return [];
  }
  if (listed.length === 0) return [];
  const present = new Set(listed);
  const out: [string, Record<string, unknown>][] = [];
  for (const ledger of files) {
    const name = recordFileName(real ? realOf(ledger) : ledger);
    if (!present.has(name)) continue;
    const records = readRecordFile(path.join(dir, name));
    if (records) out.push([ledger, records.gates]);
  }
  return out;
}

/**
 * The world records are checked against (core/trace.ts World), one per read: each folder's real
 * path, each expansion and each file's digest is computed once, however many gates ask.
 */
export class DigestWalk implements World {
  private readonly dirs = new Map<string, string | null>();
  private readonly digests = new Map<string, string | null>();
  private readonly expansions = new Map<string, { files: string[]; truncated: boolean; unmatched: string[] }>();
  private readonly realRoot: string;

  /** `explicit`: the ledgers were named on the command line (a gate's CWD is then relative to its ledger's base). */
  constructor(
    private readonly root: string,
    private readonly explicit = false,
  ) {
    this.realRoot = realOf(root);
  }

  /**
   * The oracle binding's files of one gate now (io/oracle/binding.ts), each file hashed at most
   * once per walk; a file whose identity is the one `record` (the gate's pass record) kept for it
   * is not hashed at all (io/oracle/identity.ts).
   */
  oracle(
    file: string,
    gate: Gate,
    ranIn: string | null = null,
    record?: TraceRecord,
  ): Record<string, string> | { error: string } {
    const cwd = this.oracleDir(file, gate, ranIn);
    const known = knownFiles(record);
    try {
      const display = isInside(this.root, file) ? path.relative(this.root, file) : file;
      const digestOf = (abs: string, compute: () => string, key: string) =>
        this.oracleDigest(abs, compute, known?.(key, abs));
      // Issue 39: the files the pass was bound to beyond the static closure (observed by the tracer) stay bound.
      const observed = record
        ? Object.keys(record.depends).flatMap((n) => (n.startsWith("oracle:") ? [n.slice("oracle:".length)] : []))
        : undefined;
      const owns = (record?.detail as { owns?: unknown } | undefined)?.owns;
      return oracleFiles({
        root: this.realRoot,
        display,
        gate,
        cwd,
        env: process.env,
        digestOf,
        packages: this.packages,
        observed,
        owns: Array.isArray(owns) ? owns.filter((o): o is string => typeof o === "string") : undefined,
      });
    } catch (e) {
      return { error: (e as Error).message };
    }
  }

  /** The pass record's files stand as recorded: every identity unchanged (io/oracle/identity.ts filesUnchanged). */
  oracleHolds(file: string, gate: Gate, ranIn: string | null, record: TraceRecord): boolean {
    return filesUnchanged(
      record.detail,
      record.depends,
      gate,
      this.oracleDir(file, gate, ranIn),
      this.realRoot,
      (abs) => this.identity(abs),
    );
  }

  /** Issue 39: a pass judged against `approval` holds while it is the gate's latest approval (io/run/approval.ts). */
  judgedHolds(file: string, gateId: string, approval: string): boolean {
    try {
      return latestApproval(approvalDirFor(process.env), file, gateId) === approval;
    } catch {
      return false;
    }
  }

  /** The directory a gate's CHECK names its files from: where its pass ran (`ranIn`), else its CWD, as a real path when it is one. */
  private oracleDir(file: string, gate: Gate, ranIn: string | null): string {
    const base = this.explicit ? ledgerBase(file) : this.root;
    const dir = gate.cwd ? path.resolve(base, gate.cwd) : base;
    return (ranIn === null ? null : this.checkDir(ranIn)) ?? this.checkDir(dir) ?? dir;
  }

  private readonly packages = new Map<string, Record<string, unknown> | null>();
  /** Digests this walk computed: the only ones shared between gates. */
  private readonly oracleDigests = new Map<string, string>();
  private readonly identities = new Map<string, string | null>();

  /** A file's identity now (io/oracle/identity.ts), one stat per walk. */
  private identity(abs: string): string | null {
    let now = this.identities.get(abs);
    if (now === undefined) this.identities.set(abs, (now = currentIdentity(abs)));
    return now;
  }

  /** A file's digest: computed once per walk, or the one its gate's own record vouches for while its identity holds. */
  private oracleDigest(
    abs: string,
    compute: () => string,
    recorded: { digest: string; identity: string } | undefined,
  ): string {
    let d = this.oracleDigests.get(abs);
    if (d !== undefined) return d;
    if (recorded && this.identity(abs) === recorded.identity) return recorded.digest; // never shared: it is this record's word
    this.oracleDigests.set(abs, (d = compute()));
    return d;
  }

  private readonly checkDirs = new Map<string, string | null>();

  /** Each folder resolved once per walk: every met gate asks for its CHECK directory (a realpath and a stat each). */
  checkDir(cwd: string): string | null {
    if (typeof cwd !== "string" || !path.isAbsolute(cwd)) return null;
    let found = this.checkDirs.get(cwd);
    if (found === undefined) this.checkDirs.set(cwd, (found = this.resolveDir(cwd)));
    return found;
  }

  private resolveDir(cwd: string): string | null {
    try {
      const real = fs.realpathSync(cwd);
      return isInside(this.realRoot, real) && fs.statSync(real).isDirectory() ? real : null;
    } catch {
      return null;
    }
  }

  private expand(cwd: string, inputs: readonly string[]): { files: string[]; truncated: boolean; unmatched: string[] } {
    const key = `${cwd}\0${JSON.stringify(inputs)}`;
    let e = this.expansions.get(key);
    if (!e) this.expansions.set(key, (e = expandInputs(cwd, [...inputs], this.realRoot)));
    return e;
  }

  refusal(cwd: string, inputs: readonly string[]): string | null {
    return inputsProblem(this.expand(cwd, inputs));
  }

  inputs(cwd: string, inputs: readonly string[], ledger: string): InputsNow {
    const expanded = this.expand(cwd, inputs);
    const problem = inputsProblem(expanded);
    if (problem) return { files: {}, refusal: problem };
    const files: Record<string, string> = {};
    for (const rel of expanded.files) {
      const abs = path.join(cwd, rel);
      let d = this.digests.get(abs);
      if (d === undefined) {
        try {
          d = digestFile(this.realRoot, abs, this.dirs);
        } catch (e) {
          if (e instanceof DeadlineError && !e.file)
            throw new DeadlineError(e.seconds, e.what, path.relative(this.root, ledger) || ledger);
          throw e;
        }
        this.digests.set(abs, d);
      }
      if (d !== null) files[rel] = d;
    }
    return { files, refusal: null };
  }
}

/** A pass record's file identities (io/oracle/identity.ts) as a lookup of key → recorded digest and identity. */
function knownFiles(
  record: TraceRecord | undefined,
): ((key: string, abs: string) => { digest: string; identity: string } | undefined) | null {
  const stat = (record?.detail as { stat?: Record<string, unknown> } | undefined)?.stat;
  if (!record || !stat || typeof stat !== "object") return null;
  return (key) => {
    const identity = Object.hasOwn(stat, key) ? stat[key] : undefined;
    const digest = record.depends[oracleFileName(key)];
    return typeof identity === "string" && typeof digest === "string" ? { digest, identity } : undefined;
  };
}

/**
 * The records that speak for `files` (absolute ledger paths; `real`: not known to be real paths)
 * and the world they are checked against.
 */
export function readTrace(root: string, files: readonly string[], o: { real?: boolean } = {}): TraceData {
  const real = o.real ?? false;
  const records = new Map<string, TraceRecord[]>();
  const add = (file: string, r: TraceRecord) => {
    const list = records.get(file);
    if (list) list.push(r);
    else records.set(file, [r]);
  };
  for (const [ledger, gates] of recordsIn(path.join(root, INPUTS_DIR), files, real)) {
    for (const [id, rec] of Object.entries(gates)) {
      const s = rec as InputsStored;
      if (!s || typeof s !== "object" || !Array.isArray(s.inputs) || typeof s.files !== "object" || s.files === null)
        continue;
      add(ledger, inputsRecord(ledger, id, s));
    }
  }
  for (const [ledger, gates] of recordsIn(path.join(root, PROBES_DIR), files, real)) {
    for (const [id, rec] of Object.entries(gates)) {
      const s = rec as ProbeStored;
      if (!s || typeof s.verdict !== "string" || !Array.isArray(s.hidden)) continue;
      add(ledger, probeRecord(ledger, id, s));
    }
  }
  for (const [ledger, gates] of recordsIn(path.join(root, ORACLES_DIR), files, real)) {
    for (const [id, rec] of Object.entries(gates)) {
      const s = rec as OracleStored;
      if (
        !s ||
        typeof s !== "object" ||
        typeof s.files !== "object" ||
        s.files === null ||
        typeof s.definition !== "string"
      )
        continue;
      add(ledger, oracleRecord(ledger, id, s));
    }
  }
  for (const [ledger, gates] of recordsIn(path.join(root, FAILURES_DIR), files, real)) {
    for (const [id, rec] of Object.entries(gates)) {
      const s = rec as FailureStored;
      if (
        !s ||
        typeof s !== "object" ||
        typeof s.definition !== "string" ||
        typeof s.evidence !== "string" ||
        typeof s.failure !== "string"
      )
        continue;
      if (
        s.inputs !== undefined &&
        (!Array.isArray(s.inputs) || typeof s.cwd !== "string" || typeof s.files !== "object" || s.files === null)
      )
        continue;
      add(ledger, failureRecord(ledger, id, s));
    }
  }
  return { records, world: new DigestWalk(root, real) };
}
