// One verifier for every verdict kbz keeps (verifying traces, as in "Build Systems à la Carte").
//
// A verdict is a RECORD: what was decided about a subject, the digests it depended on when it
// was decided, and who gave it. Whether it still holds is one pure question, `verify(record,
// current)`, answered the same way for every kind:
//
//   record   { kind, subject, decided, key, depends, sets?, by?, detail? }
//     kind     what sort of verdict: "evidence" | "inputs" | "probe" | "receipt" | "approval", and
//              any kind added later (signature, attestation): the verifier does not switch on it
//     subject  what the verdict is about, e.g. "<ledger>#<gate id>" or a receipt's ledger key
//     decided  what was decided: "met", "vacuous", "observes", "accepted", "approved", ...
//     key      name → value the record is FOR: when one differs from now, the record speaks for
//              something else (an older definition, another evidence line) and the verdict is
//              `missing` (with the names that differ), never `stale`
//     depends  name → digest it DEPENDED ON: when one differs from now (or is gone now), the
//              verdict is `stale` and names every changed name, sorted
//     sets     set name → the member names it had (each a name in `depends`): a member present now
//              but not then (a file added under an INPUTS glob) is a change too
//     by       who gave it: { actor: "kbz" | "person" | "agent" | …, how?: "terminal" | … }
//     detail   kind-specific payload the verifier never reads (a probe's hidden paths)
//
//   current  what the world says now, as a DigestSource: a plain { name: digest } object, or an
//            object with `digest(name)` (and `members(set)` for sets) that io/trace.ts backs with
//            one hash walk and one cache per run. verify asks for key names first and for depends
//            names only when every key matched, so an expensive digest is computed only when needed.
//
//   verdict  { status: "valid" } | { status: "stale", changed } | { status: "missing", differs }
//            | { status: "unattested" } (the record exists and matches, but not from an actor the
//            caller requires: `verify(r, now, { by: ["person"] })`).
//
// Names are flat strings, namespaced by convention: "definition", "evidence", "INPUTS",
// "file:<absolute path>", "ledger", "context", "oracle", "env:<NAME>". A new record kind needs no
// change here: build its record from its record file (a builder below or in its own module), give the
// current digests under the same names, and call verify. The builders of the five kinds kbz keeps
// today follow; core/ledger/evidence.ts, io/trace.ts (INPUTS, probes), io/receipts/audit.ts and
// io/run/approval.ts check theirs through verify.
import { gateDigest } from "./ledger/digest.ts";
import { isRunnable, type Gate, type Ledger } from "./ledger/model.ts";
import { sha256Hex, sha256HexOfParts } from "./util/hash.ts";
import { ledgerBase } from "./workspace/inside.ts";
import { kbz } from "./text/command.ts";
import * as path from "node:path";

export type Digests = Readonly<Record<string, string>>;

export interface Actor {
  actor: string; // "kbz" | "person" | "agent" | …
  how?: string; // "terminal" | "dashboard" | …
}

export interface TraceRecord<D = unknown> {
  kind: string;
  subject: string;
  decided: string;
  key: Digests;
  depends: Digests;
  sets?: Readonly<Record<string, readonly string[]>>;
  by?: Actor;
  detail?: D;
}

/** What the world says now: plain digests, or a source that computes them on demand. */
export type DigestSource =
  | Digests
  | { digest(name: string): string | undefined; members?(set: string): readonly string[] };

export type TraceVerdict =
  | { status: "valid" }
  | { status: "stale"; changed: string[] }
  | { status: "missing"; differs: string[] } // differs: [] when there is no record at all
  | { status: "unattested" };

export interface Requirement {
  /** Actors whose records count; a matching record from anyone else is `unattested`. */
  by?: readonly string[];
}

/**
 * The names of `digests` whose value differs from what `current` says now; null when none does.
 * No closure and no allocation on the common path: status verifies the evidence record of every
 * gate of every ledger (10,000 at the scale budgets), so a plain object is read directly.
 */
function differing(digests: Digests, current: DigestSource): string[] | null {
  let out: string[] | null = null;
  if (typeof current.digest === "function") {
    const source = current as { digest(name: string): string | undefined };
    for (const n in digests) if (source.digest(n) !== digests[n]) (out ??= []).push(n);
  } else {
    for (const n in digests) if ((current as Digests)[n] !== digests[n]) (out ??= []).push(n);
  }
  return out;
}

/** Whether `record` is for what `current` says now (no key differs: verify would not say `missing`); its depends are not judged. */
export function speaksFor(record: TraceRecord, current: DigestSource): boolean {
  return differing(record.key, current) === null;
}

const NO_REQUIREMENT: Requirement = Object.freeze({});

/** The one check: does `record` still hold for the world `current` describes? Pure. */
export function verify(
  record: TraceRecord | null | undefined,
  current: DigestSource,
  require: Requirement = NO_REQUIREMENT,
): TraceVerdict {
  if (!record) return { status: "missing", differs: [] };
  const differs = differing(record.key, current);
  if (differs) return { status: "missing", differs: differs.sort() };
  if (require.by && !(record.by && require.by.includes(record.by.actor))) return { status: "unattested" };
  let changed = differing(record.depends, current);
  if (record.sets && typeof current.members === "function") {
    for (const set in record.sets) {
      const had = new Set(record.sets[set]);
      for (const n of (current.members as (s: string) => readonly string[]).call(current, set))
        if (!had.has(n)) (changed ??= []).push(n);
    }
  }
  return changed ? { status: "stale", changed: [...new Set(changed)].sort() } : VALID;
}

const VALID: TraceVerdict = Object.freeze({ status: "valid" });

// ---- the record kinds kbz keeps -------------------------------------------------------------

/** The subject name of a gate's verdicts. */
export function gateSubject(file: string, gateId: string): string {
  return `${file}#${gateId}`;
}

/** What a gate's verdict records are keyed on now: its definition digest and its evidence line. */
export function gateKey(g: Gate): Digests {
  return { definition: gateDigest(g) ?? "", evidence: g.evidence ?? "" };
}

/**
 * Automatic evidence: the ledger's own record. `recorded` is the definition digest written in
 * the evidence line; it holds while the gate's CHECK/EXPECT/CWD still digest to it.
 */
export function evidenceRecord(gateId: string, recorded: string): TraceRecord {
  return {
    kind: "evidence",
    subject: gateId,
    decided: "met",
    key: NO_DIGESTS,
    depends: { definition: recorded },
    by: BY_KBZ,
  };
}

// Shared by every evidence record (one per gate per read): never mutated.
const NO_DIGESTS: Digests = Object.freeze({});
const BY_KBZ: Actor = Object.freeze({ actor: "kbz" });

/** The INPUTS record files's record of one pass (io/inputs/records.ts InputRecord). */
export interface InputsStored {
  definition: string;
  evidence: string;
  cwd: string; // absolute
  inputs: string[];
  files: Record<string, string>; // path relative to cwd → sha256 | "too-large"
}

export function inputFileName(cwd: string, rel: string): string {
  return `file:${cwd}/${rel}`;
}

/** The INPUTS set's name: the files its globs match under its cwd. */
export function inputSetName(cwd: string, inputs: readonly string[]): string {
  return `inputs:${cwd}\0${JSON.stringify(inputs)}`;
}

export function inputsRecord(
  file: string,
  gateId: string,
  s: InputsStored,
): TraceRecord<{ cwd: string; inputs: string[] }> {
  const depends: Record<string, string> = { INPUTS: sha256Hex(JSON.stringify(s.inputs)) };
  const names: string[] = [];
  for (const [rel, digest] of Object.entries(s.files)) {
    const n = inputFileName(s.cwd, rel);
    depends[n] = digest;
    names.push(n);
  }
  return {
    kind: "inputs",
    subject: gateSubject(file, gateId),
    decided: "met",
    key: { definition: s.definition ?? "", evidence: s.evidence }, // a signed manual gate has no definition digest (null)
    depends,
    sets: { [inputSetName(s.cwd, s.inputs)]: names },
    by: { actor: "kbz" },
    detail: { cwd: s.cwd, inputs: s.inputs },
  };
}

/** The probe record files's record (io/check/probeRecords.ts ProbeRecord). */
export interface ProbeStored {
  definition: string;
  evidence: string;
  verdict: "vacuous" | "observes";
  hidden: string[];
  signature: string;
}

export function probeRecord(
  file: string,
  gateId: string,
  s: ProbeStored,
): TraceRecord<{ hidden: string[]; signature: string }> {
  return {
    kind: "probe",
    subject: gateSubject(file, gateId),
    decided: s.verdict,
    key: { definition: s.definition, evidence: s.evidence },
    depends: {},
    by: { actor: "kbz" },
    detail: { hidden: s.hidden, signature: s.signature },
  };
}

/**
 * A VACUOUS verdict as kbz keeps it in the approval store, outside the repository (io/run/attest.ts;
 * issue 27). It is bound to the gate's definition and to the oracle the probed pass ran under (the
 * binding signature of its oracle pass record, "-" when it bound no file), never to the EVIDENCE
 * line or to any record in the repository: it holds until a pass runs under another oracle (which
 * a person approved: the verdict withdrew the gate's approvals) or a probe observes.
 */
export interface VacuityStored {
  definition: string;
  oracle: string; // binding signature of the probed pass, or NO_RECORD
  hidden: string[]; // root-relative, at most a few
}

export function vacuityRecord(file: string, gateId: string, s: VacuityStored): TraceRecord<{ hidden: string[] }> {
  return {
    kind: "probe",
    subject: gateSubject(file, gateId),
    decided: "vacuous",
    key: { definition: s.definition, oracle: s.oracle },
    depends: {},
    by: { actor: "kbz" },
    detail: { hidden: s.hidden },
  };
}

/** Status's words for a gate a probe found VACUOUS (core/snapshot.ts). */
export function vacuityReason(hidden: readonly string[]): string {
  const shown = hidden.length > 3 ? `${hidden.slice(0, 3).join(", ")}, +${hidden.length - 3} more` : hidden.join(", ");
  return `VACUOUS (its CHECK passed with its deliverable hidden: ${shown || "-"}; a person makes the CHECK observe it and approves it, then ${kbz("check")})`;
}

/** A verification receipt (io/receipts/file.ts Receipt): accepted for one ledger text and one context. */
export function receiptRecord(key: string, r: { status: string; ledgerHash?: string; context?: string }): TraceRecord {
  return {
    kind: "receipt",
    subject: key,
    decided: r.status,
    key: { ledger: r.ledgerHash ?? "" },
    depends: { context: r.context ?? "" },
    by: { actor: "kbz" },
  };
}

/** An approval (io/run/approval.ts): consent to one runtime oracle, named by its signature. */
export function approvalRecord(
  file: string,
  gateId: string,
  signature: string,
  by: Actor = { actor: "person" },
): TraceRecord {
  return {
    kind: "approval",
    subject: gateSubject(file, gateId),
    decided: "approved",
    key: {},
    depends: { oracle: signature },
    by,
  };
}

/** The oracle a pass ran under (io/oracle/records.ts OraclePassRecord; issue 27). */
export interface OracleStored {
  definition: string;
  evidence: string;
  signature: string;
  files: Record<string, string>; // root-relative key (or package.json#scripts.<name>) → digest
  stat?: Record<string, string>; // key → the file's identity when hashed (io/oracle/identity.ts)
  filesFrom?: string; // the files are exactly those the CHECK names from this real directory
  owns?: string[]; // the ledger's OWNS: (the work) when the pass was bound (issue 39)
  judged?: string; // issue 39: judged in a view of the approved oracle, this approval's signature; `files` are the approved ones
}

export const ORACLE_FILES_SET = "oracle-files";

export function oracleFileName(key: string): string {
  return `oracle:${key}`;
}

export function oracleRecord(
  file: string,
  gateId: string,
  s: OracleStored,
): TraceRecord<{
  signature: string;
  stat?: Record<string, string>;
  filesFrom?: string;
  judged?: string;
  owns?: string[];
}> {
  const depends: Record<string, string> = {};
  for (const [key, digest] of Object.entries(s.files)) depends[oracleFileName(key)] = digest;
  return {
    kind: "oracle",
    subject: gateSubject(file, gateId),
    decided: "met",
    key: { definition: s.definition, evidence: s.evidence },
    depends,
    sets: { [ORACLE_FILES_SET]: Object.keys(depends) },
    by: { actor: "kbz" },
    // The identities are detail, so recordDigest (what an attestation binds) covers them.
    detail: {
      signature: s.signature,
      ...(typeof s.judged === "string"
        ? { judged: s.judged }
        : s.stat && typeof s.stat === "object"
          ? { stat: s.stat, ...(s.filesFrom === undefined ? {} : { filesFrom: s.filesFrom }) }
          : {}),
      ...(Array.isArray(s.owns) ? { owns: s.owns } : {}),
    },
  };
}

/**
 * A failed run (issue 31: failed is a state), kept like a pass's records: for one definition and
 * one evidence line (a failed run leaves the box unticked and the line as it was), and, for a
 * gate with INPUTS, on the input files as the run saw them. It goes stale when any of them
 * changes: the gate then reads as plain unmet, never as a failure of something else.
 */
export interface FailureStored {
  definition: string;
  evidence: string;
  failure: string; // "exit 3", "EXPECT not matched", "timed out after 30s", …
  cwd?: string; // with INPUTS: the CHECK directory (absolute) and the files the run saw
  inputs?: string[];
  files?: Record<string, string>;
}

export function failureRecord(
  file: string,
  gateId: string,
  s: FailureStored,
): TraceRecord<{ failure: string; cwd?: string }> {
  const depends: Record<string, string> = {};
  const names: string[] = [];
  if (s.inputs && s.cwd && s.files) {
    depends.INPUTS = sha256Hex(JSON.stringify(s.inputs));
    for (const [rel, digest] of Object.entries(s.files)) {
      const n = inputFileName(s.cwd, rel);
      depends[n] = digest;
      names.push(n);
    }
  }
  return {
    kind: "failure",
    subject: gateSubject(file, gateId),
    decided: "failed",
    key: { definition: s.definition, evidence: s.evidence },
    depends,
    ...(s.inputs && s.cwd ? { sets: { [inputSetName(s.cwd, s.inputs)]: names } } : {}),
    by: { actor: "kbz" },
    detail: { failure: s.failure, ...(s.cwd ? { cwd: s.cwd } : {}) },
  };
}

/** The directory automatic evidence says its CHECK ran in (`…; cwd=<dir>; path=…`), or null. */
export function evidenceCwd(evidence: string | null): string | null {
  const m = evidence === null ? null : /; cwd=(\/.*?); path=[0-9a-f]{12}\//.exec(evidence);
  return m ? m[1]! : null;
}

/** Status's words for a met gate whose oracle files changed since its pass. */
export function oracleChangeReason(changed: readonly string[]): string {
  const shown =
    changed.length > 3 ? `${changed.slice(0, 3).join(", ")}, +${changed.length - 3} more` : changed.join(", ");
  return `STALE (oracle changed: ${shown}; needs a person's approval again)`;
}

/**
 * The digest of a record's content (kind, decision, key, depends and detail; not its subject):
 * what another record binds when it depends on this one. 32 hex digits (128 bits of sha256).
 */
export function recordDigest(r: TraceRecord): string {
  const sorted = (d: Digests) =>
    Object.keys(d)
      .sort()
      .map((k) => [k, d[k]]);
  return sha256Hex(JSON.stringify([r.kind, r.decided, sorted(r.key), sorted(r.depends), r.detail ?? null])).slice(
    0,
    32,
  );
}

/**
 * What an attestation binds of a gate's evidence: kind and EVIDENCE line, 32 hex digits. Newlines
 * separate the parts (an EVIDENCE line holds none); a NUL there took Bun's hasher off its fast
 * path, doubling the cost of the one hash status pays per met gate.
 */
export function attestedEvidence(kind: "pass" | "sign", evidence: string): string {
  return sha256Hex(`kbz.attestation.v2\n${kind}\n${evidence}`).slice(0, 32);
}

/**
 * kbz's attestation of a pass or a signature (io/run/attest.ts, kept in the approval store under
 * the user's MAC): keyed on the evidence it vouches for, depending on the INPUTS and oracle pass
 * records written with it (their recordDigest, or "-" when the pass had none). Deleting or
 * editing either record in the repository makes it `stale`, never valid.
 */
export interface AttestationStored {
  evidence: string; // attestedEvidence(kind, EVIDENCE line)
  inputs: string; // recordDigest of the INPUTS record, or "-"
  oracle: string; // recordDigest of the oracle pass record, or "-"
}

export const NO_RECORD = "-";

export function attestationRecord(
  file: string,
  gateId: string,
  kind: "pass" | "sign",
  s: AttestationStored,
): TraceRecord {
  return {
    kind: "attestation",
    subject: gateSubject(file, gateId),
    decided: kind === "sign" ? "signed" : "passed",
    key: { attested: s.evidence },
    depends: { inputs: s.inputs, oracle: s.oracle },
    by: { actor: kind === "sign" ? "person" : "kbz" },
  };
}

/** Status's words for a met gate whose attestation does not hold (null when it does). */
export function attestationReason(v: TraceVerdict, kind: "pass" | "sign"): string | null {
  if (v.status === "valid") return null;
  const hint =
    kind === "sign" ? `a person signs it with ${kbz("sign")} in a terminal` : `run ${kbz("check", { reverify: true })}`;
  if (v.status === "stale") {
    const what = v.changed.includes("oracle")
      ? "the oracle this pass ran under"
      : kind === "sign"
        ? "the INPUTS this signature bound"
        : "the INPUTS this pass read";
    return `UNATTESTED (kbz's record of ${what} is missing or altered; ${hint})`;
  }
  return kind === "sign"
    ? `UNATTESTED (no person signed this here; ${hint})`
    : `UNATTESTED (kbz has no record of this pass; ${hint})`;
}

// ---- a ledger's gates checked against their records ---------------------------------------

/** The INPUTS of one gate as they are now (io/trace.ts, one hash walk per run). */
export interface InputsNow {
  /** Matched file (relative to the CHECK directory) → sha256; unreadable files are left out. */
  files: Readonly<Record<string, string>>;
  /** Why the INPUTS cannot be bound to a pass (they match more files than the cap), or null. */
  refusal: string | null;
}

/**
 * The world the records are checked against, served by io/trace.ts with one cache per run.
 * Asked only for what a verdict needs: a record whose key no longer matches costs no hashing.
 */
export interface World {
  /** A recorded CHECK directory, as a real path, when it is a directory inside the root; else null. */
  checkDir(cwd: string): string | null;
  /** Why `inputs` under `cwd` cannot be bound (the cap), or null; expands, never hashes. */
  refusal(cwd: string, inputs: readonly string[]): string | null;
  /** The files `inputs` match under `cwd` and their digests now; `ledger` names who asks (for a timeout's message). */
  inputs(cwd: string, inputs: readonly string[], ledger: string): InputsNow;
  /**
   * The oracle files of `gate` of `file` now (key → digest, io/oracle/binding.ts), or the reason it
   * cannot be bound; absent in worlds that keep no oracle records. `record`: the pass record being
   * checked, whose file identities (if any) let a file unchanged since its pass skip hashing.
   */
  oracle?(
    file: string,
    gate: Gate,
    ranIn?: string | null,
    record?: TraceRecord,
  ): Readonly<Record<string, string>> | { error: string };
  /**
   * True when the world can tell, without binding the oracle, that the files of `record` (a pass
   * record speaking for the gate's current definition and evidence) are still exactly the ones it
   * names, with the digests it names (io/oracle/identity.ts: every file's identity unchanged).
   * False means "not known": the oracle is bound and compared.
   */
  oracleHolds?(file: string, gate: Gate, ranIn: string | null, record: TraceRecord): boolean;
  /**
   * Issue 39: true when `approval` (a runtime oracle signature) is still the latest approval of
   * the gate, so a pass judged against it stands however the live oracle was edited since.
   */
  judgedHolds?(file: string, gateId: string, approval: string): boolean;
}

/** Every record kept for the ledgers of one read (by ledger file, absolute) and the world now. */
export interface TraceData {
  records: ReadonlyMap<string, readonly TraceRecord[]>;
  world: World;
}

export interface GateVerdicts {
  /** Gates whose INPUTS keep them from being met: gate id → the reason shown (STALE … for a met gate). */
  stale: Map<string, string>;
  /** Unmet gates whose last run of this very definition, evidence and inputs failed: gate id → how ("exit 3"). */
  failed: Map<string, string>;
  /** Gates whose current pass a probe found VACUOUS: gate id → what was hidden (root-relative). */
  vacuous: Map<string, string[]>;
}

/**
 * The verdicts of one ledger's gates: the one place status, `kbz next`, the dashboard and the
 * Stop hook learn which gates are STALE by their INPUTS or VACUOUS by their probe. `isMet(g)` is
 * the gate's state by its ledger text alone; `attested`: kbz's records of this ledger in the
 * approval store (person policy), whose VACUOUS verdicts count beside the repository's.
 */
export function gateVerdicts(
  trace: TraceData,
  root: string,
  file: string,
  ledger: Ledger,
  isMet: (g: Gate) => boolean,
  attested?: LedgerAttested,
): GateVerdicts {
  const out: GateVerdicts = { stale: new Map(), failed: new Map(), vacuous: new Map() };
  const held = attested?.vacuous;
  const stored = trace.records.get(file) ?? [];
  const records = held ? [...stored, ...Object.entries(held).map(([id, s]) => vacuityRecord(file, id, s))] : stored;
  // A met gate with INPUTS and no record is STALE too, so only a ledger with neither is skipped.
  if (records.length === 0 && !ledger.gates.some((g) => g.inputs)) return out;
  const byGate = recordsByGate(records);
  for (const g of ledger.gates) {
    const mine = byGate.get(g.id);
    if (!mine && !g.inputs) continue; // no record speaks for it, and no INPUTS to bind
    const met = isMet(g); // the ledger's own verdict: a digest of the definition, asked once
    if (g.inputs) {
      const reason = met
        ? inputsReason(
            mine?.find((r) => r.kind === "inputs"),
            g,
            trace.world,
            file,
          )
        : unboundReason(g, trace.world, file);
      if (reason) out.stale.set(g.id, reason);
    }
    if (!out.stale.has(g.id) && met) {
      const reason = oracleReason(
        mine?.find((r) => r.kind === "oracle"),
        g,
        trace.world,
        file,
      );
      if (reason) out.stale.set(g.id, reason);
    }
    const failure = met || out.stale.has(g.id) ? undefined : mine?.find((r) => r.kind === "failure");
    if (failure && failureHolds(failure, g, trace.world, file))
      out.failed.set(g.id, (failure.detail as { failure: string }).failure);
    const probe = mine?.find((r) => r.kind === "probe" && r.decided === "vacuous" && vacuityHolds(r, g, mine));
    if (probe)
      out.vacuous.set(
        g.id,
        (probe.detail as { hidden: string[] }).hidden.map((h) =>
          h.startsWith(root + "/") ? h.slice(root.length + 1) : h,
        ),
      );
  }
  return out;
}

/**
 * Whether a VACUOUS probe record still speaks for `g`. The repository's record (.kbz/probes/) is
 * keyed on the definition and EVIDENCE line; kbz's own (vacuityRecord) on the definition and the
 * oracle of the current pass, read from its oracle pass record. With no such record the oracle is
 * not known to have changed, so the verdict holds: deleting records never clears it.
 */
function vacuityHolds(r: TraceRecord, g: Gate, mine: readonly TraceRecord[]): boolean {
  const key = gateKey(g);
  if (r.key.oracle === undefined) return verify(r, key).status === "valid";
  const pass = mine.find((x) => x.kind === "oracle" && verify(x, key).status !== "missing");
  const ranUnder = (pass?.detail as { signature?: string } | undefined)?.signature;
  return verify(r, { definition: key.definition, oracle: ranUnder ?? r.key.oracle }).status === "valid";
}

/** Whether a failure record still speaks for `g`: same definition and evidence line, and its input files unchanged. */
function failureHolds(record: TraceRecord, g: Gate, world: World, file: string): boolean {
  const key = gateKey(g);
  const declared = g.inputs ? sha256Hex(JSON.stringify(g.inputs)) : undefined;
  const ask = (n: string) => (n === "definition" || n === "evidence" ? key[n] : n === "INPUTS" ? declared : undefined);
  const first = verify(record, { digest: ask });
  if (first.status !== "stale" || !g.inputs) return first.status === "valid";
  if (first.changed.includes("INPUTS")) return false;
  const recorded = (record.detail as { cwd?: string }).cwd;
  const cwd = recorded ? world.checkDir(recorded) : null;
  if (!recorded || cwd === null) return false;
  const now = world.inputs(cwd, g.inputs, file);
  if (now.refusal) return false;
  const prefix = inputFileName(recorded, "");
  const v = verify(record, {
    digest: (n) => ask(n) ?? (n.startsWith(prefix) ? now.files[n.slice(prefix.length)] : undefined),
    members: () => Object.keys(now.files).map((rel) => prefix + rel),
  });
  return v.status === "valid";
}

/** A gate not met yet whose INPUTS are over the cap can never be met: said before it is run. */
function unboundReason(g: Gate, world: World, file: string): string | null {
  if (!g.check) return null;
  const base = ledgerBase(file);
  return world.refusal(g.cwd ? path.resolve(base, g.cwd) : base, g.inputs!);
}

/** Why an INPUTS record no longer holds for the met gate `g`, in the words status prints; null when it holds. */
export function inputsReason(record: TraceRecord | undefined, g: Gate, world: World, file: string): string | null {
  const key = gateKey(g);
  const inputs = g.inputs!;
  const declared = sha256Hex(JSON.stringify(inputs));
  const ask = (n: string) => (n === "definition" || n === "evidence" ? key[n] : n === "INPUTS" ? declared : undefined);
  // Key and declaration first: a record of another pass or another INPUTS line hashes nothing.
  const first = verify(record, { digest: ask });
  if (first.status === "missing")
    return `STALE (no input digest recorded for this evidence; run ${kbz("check", { reverify: true })})`;
  if (first.status === "stale" && first.changed.includes("INPUTS")) return "STALE (INPUTS changed since the pass)";
  const recorded = (record!.detail as { cwd: string }).cwd;
  const cwd = world.checkDir(recorded);
  if (cwd === null)
    return `STALE (the recorded CHECK directory is not inside the repository; run ${kbz("check", { reverify: true })})`;
  const now = world.inputs(cwd, inputs, file);
  if (now.refusal) return `STALE (${now.refusal})`;
  const prefix = inputFileName(recorded, "");
  const v = verify(record, {
    digest: (n) => ask(n) ?? (n.startsWith(prefix) ? now.files[n.slice(prefix.length)] : undefined),
    members: () => Object.keys(now.files).map((rel) => prefix + rel),
  });
  if (v.status !== "stale") return null;
  const names = v.changed.map((n) => (n.startsWith(prefix) ? n.slice(prefix.length) : n)).sort();
  return `STALE (input changed: ${names[0]})`;
}

/**
 * Why the oracle record of a met gate no longer holds (issue 27): a file the CHECK runs, a
 * package.json script or an ORACLE: file changed, appeared or went. Null when it holds, or when
 * no record speaks for this evidence (a pass of unlazy or of an older kbz: read as before).
 */
export function oracleReason(record: TraceRecord | undefined, g: Gate, world: World, file: string): string | null {
  if (!record || !world.oracle) return null;
  const key = gateKey(g);
  if (!speaksFor(record, key)) return null;
  // Bound where the pass ran (its evidence's cwd=): `kbz verify run` and `--cwd` run a ledger
  // elsewhere than its own folder, and the CHECK's files are named relative to that directory.
  const ranIn = evidenceCwd(g.evidence);
  if (world.oracleHolds?.(file, g, ranIn, record)) return null;
  const now = world.oracle(file, g, ranIn, record);
  if ("error" in now && typeof now.error === "string") return `STALE (oracle cannot be bound: ${now.error})`;
  const files = now as Readonly<Record<string, string>>;
  const v = verify(record, {
    digest: (n) =>
      n === "definition" || n === "evidence"
        ? key[n]
        : n.startsWith("oracle:")
          ? files[n.slice("oracle:".length)]
          : undefined,
    members: () => Object.keys(files).map(oracleFileName),
  });
  if (v.status !== "stale") return null;
  // Issue 39: a pass judged against the approved oracle is a pass of the work while that approval
  // is the gate's latest; the live edit is a proposal for the person (docs/checks.md#approved-oracle).
  const judged = (record.detail as { judged?: unknown } | undefined)?.judged;
  if (typeof judged === "string" && world.judgedHolds?.(file, g.id, judged)) return null;
  return oracleChangeReason(v.changed.map((n) => n.slice("oracle:".length)));
}

// ---- a ledger's met gates checked against kbz's attestations (issue 27) -----------------

/**
 * One ledger's attestations as the verifier reads them (io/run/attest.ts keeps them sealed in the
 * approval store). `gates`: gate id → `"<evidence>"`, or `"<evidence> <inputs> <oracle>"` when
 * the pass or signature had an INPUTS or oracle record. `all`: the digest of the ledger's whole
 * met list when kbz last attested into it (metListDigest), so a reader whose met gates give the
 * same digest checks one hash instead of one per gate. `text`: the digest of the ledger's whole
 * text when kbz last wrote into it (attestedLedgerDigest), set only when every met gate was
 * attested and every gate the file speaks for was in the ledger: a reader whose ledger text gives
 * the same digest needs neither the met list nor the REMOVED walk.
 */
export interface LedgerAttested {
  gates: Readonly<Record<string, string>>;
  all?: string;
  text?: string;
  /** Gates a probe found VACUOUS under the person policy (vacuityRecord): read by gateVerdicts. */
  vacuous?: Readonly<Record<string, VacuityStored>>;
}

/**
 * The attestations of one read, by ledger file as that read names it; null under the agent
 * policy, where nothing is checked. Data computed by io before a pure builder runs.
 */
export type Attestations = ReadonlyMap<string, LedgerAttested> | null;

/** One gate's attestation as stored; null when the stored value is not one. */
export function decodeAttestation(v: unknown): AttestationStored | null {
  if (typeof v !== "string") return null;
  if (v.length === 32) return { evidence: v, inputs: NO_RECORD, oracle: NO_RECORD };
  const [evidence, inputs, oracle] = v.split(" ");
  return evidence && inputs && oracle ? { evidence, inputs, oracle } : null;
}

/** One met gate as the ledger-wide digest lists it: the same parts its own attestation binds. */
export interface MetGate {
  id: string;
  kind: "pass" | "sign";
  evidence: string;
  inputs: string; // recordDigest of its INPUTS record now, or "-"
  oracle: string; // recordDigest of its oracle pass record now, or "-"
}

/** The digest of a ledger's met gates in ledger order (ids and EVIDENCE lines hold no newline). */
export function metListDigest(gates: readonly MetGate[]): string {
  let text = "kbz.attested-list.v1\n";
  for (const g of gates) text += `${g.id}\n${g.kind}\n${g.evidence}\n${g.inputs}\n${g.oracle}\n`;
  return sha256Hex(text).slice(0, 32);
}

/**
 * The speed trick of the attestation check (the one place it lives): the digest of a ledger's
 * whole text, as kbz attested it (LedgerAttested.text). Hashing the text a reader already holds
 * is one native pass over its bytes (about 2 ms for 10,000 gates), where the met list builds a
 * string per met gate first (about 15 ms cold, most of the person policy's cost in `status`).
 * It is as strong as the met list: the same text has the same met gates with the same EVIDENCE
 * lines, which kbz found attested when it wrote the digest; the INPUTS and oracle pass records,
 * which live outside the ledger, are still compared gate by gate (attestedRecordsHold). Memoised
 * per parsed ledger, so status's UNATTESTED and REMOVED checks hash a text once.
 */
export function attestedLedgerDigest(ledger: Pick<Ledger, "text">): string {
  let d = textDigests.get(ledger);
  if (d === undefined)
    textDigests.set(ledger, (d = sha256HexOfParts(["kbz.attested-ledger.v1\n", ledger.text]).slice(0, 32)));
  return d;
}
const textDigests = new WeakMap<object, string>();

/**
 * With the ledger's text as kbz attested it: whether each met gate's INPUTS and oracle pass
 * records now are the ones its attestation names (a gate attested without records, stored as the
 * bare 32-digit evidence digest, needs none to be there).
 */
function attestedRecordsHold(
  met: readonly Gate[],
  attested: LedgerAttested,
  byGate: Map<string, TraceRecord[]> | null,
): boolean {
  for (const g of met) {
    const v = attested.gates[g.id];
    if (v === undefined) return false;
    if (v.length === 32 && byGate === null) continue;
    const stored = decodeAttestation(v);
    if (
      !stored ||
      stored.inputs !== passRecordNow(byGate, g, "inputs") ||
      stored.oracle !== passRecordNow(byGate, g, "oracle")
    )
      return false;
  }
  return true;
}

/** One ledger's records by the id of the gate they speak for (the last part of their subject). */
function recordsByGate(records: readonly TraceRecord[]): Map<string, TraceRecord[]> {
  const out = new Map<string, TraceRecord[]>();
  for (const r of records) {
    const id = r.subject.slice(r.subject.lastIndexOf("#") + 1);
    const list = out.get(id);
    if (list) list.push(r);
    else out.set(id, [r]);
  }
  return out;
}

/** The digest of the record of `kind` that speaks for the gate's current evidence, or "-". */
function passRecordNow(byGate: Map<string, TraceRecord[]> | null, g: Gate, kind: "inputs" | "oracle"): string {
  const r = byGate?.get(g.id)?.find((x) => x.kind === kind && x.key.evidence === g.evidence);
  return r ? recordDigest(r) : NO_RECORD;
}

function metGateOf(g: Gate, byGate: Map<string, TraceRecord[]> | null): MetGate {
  return {
    id: g.id,
    kind: isRunnable(g) ? "pass" : "sign",
    evidence: g.evidence ?? "",
    inputs: passRecordNow(byGate, g, "inputs"),
    oracle: passRecordNow(byGate, g, "oracle"),
  };
}

/**
 * The met gates of one ledger (`file` as the read names it, `met` in ledger order) that kbz's
 * attestation does not vouch for: gate id → status's words (UNATTESTED …). The INPUTS and oracle
 * pass records the repository holds now (`records`, the read's trace) count only when they speak
 * for the gate's current evidence; each is hashed only when the attestation's evidence matched.
 * The one place status, `kbz next`, the dashboard and the Stop hook learn UNATTESTED. `ledger`:
 * the ledger the gates were read from (its text is compared with the attested one first).
 */
export function unattestedGates(
  file: string,
  met: readonly Gate[],
  attested: LedgerAttested | undefined,
  records: readonly TraceRecord[] | undefined,
  ledger?: Pick<Ledger, "text">,
): Map<string, string> {
  const out = new Map<string, string>();
  if (met.length === 0) return out;
  const byGate = records && records.length > 0 ? recordsByGate(records) : null;
  // No hash per gate when the ledger is the text kbz last attested (attestedLedgerDigest).
  if (
    ledger &&
    attested?.text !== undefined &&
    attested.text === attestedLedgerDigest(ledger) &&
    attestedRecordsHold(met, attested, byGate)
  )
    return out;
  // One hash for the whole ledger when its met gates are the ones kbz last attested.
  if (attested?.all !== undefined && attested.all === metListDigest(met.map((g) => metGateOf(g, byGate)))) return out;
  for (const g of met) {
    const kind = isRunnable(g) ? "pass" : "sign";
    const stored = attested ? decodeAttestation(attested.gates[g.id]) : null;
    const record = stored ? attestationRecord(file, g.id, kind, stored) : null;
    const v = verify(record, {
      digest: (n) =>
        n === "attested"
          ? attestedEvidence(kind, g.evidence ?? "")
          : n === "inputs" || n === "oracle"
            ? passRecordNow(byGate, g, n)
            : undefined,
    });
    const reason = attestationReason(v, kind);
    if (reason !== null) out.set(g.id, reason);
  }
  return out;
}
