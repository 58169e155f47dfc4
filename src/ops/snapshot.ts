// The status snapshot of what a command targets, assembled from the reads below it: the ledgers
// (io/read.ts), the dispatch aggregate through the coordination port, the verdict records
// (io/trace.ts) and kbz's attestations (io/check/attested.ts), handed to the pure builder
// (core/snapshot.ts). A verb reads it once and hands it on as data.
import { UsageError } from "../core/errors.ts";
import type { Target } from "../core/workspace/target.ts";
import {
  aggregateDispatch,
  DispatchStateError,
  invalidAggregate,
  type DispatchAggregate,
} from "../core/dispatch/waves.ts";
import { buildSnapshot, type Snapshot } from "../core/snapshot.ts";
import { escapeField } from "../core/text/sanitize.ts";
import { kbz } from "../core/text/command.ts";
import { canonicalRoot, resolveTarget, withSoloLedgers } from "../io/discover.ts";
import { readTrace } from "../io/trace.ts";
import { coordination } from "../io/coordination/active.ts";
import { attestationsOf, hasAttestedLedgers, markRemoved, readAttestations } from "../io/check/attested.ts";
import { loadLedgerFile } from "../io/read.ts";
import { markUnsigned } from "../io/sign/status.ts";
import type { ScopeInputs } from "../core/workspace/inputs.ts";
import type { TraceData } from "../core/trace.ts";
import type { RootAttestations } from "../io/run/attest.ts";
import { ledgerEntry } from "../core/snapshot.ts";
import { emptyDispatch, parseDispatch, waveLine, type DispatchState } from "../core/dispatch/waves.ts";
import { ReadError } from "../core/errors.ts";
import * as path from "node:path";

/** The status snapshot. `load` lets a long-lived reader (the dashboard) reuse entries of files that did not change. */
export function loadSnapshot(target: Target, load: typeof loadLedgerFile = loadLedgerFile): Snapshot {
  const constrained = target.mode !== "explicit";
  const realDirs = new Map<string, string>();
  const ledgers = target.files.map((f) => load(f, target.root, constrained, realDirs));
  const dispatch =
    target.discoveryErrors.length > 0
      ? null
      : target.scope
        ? dispatchStatus(target.root, target.scope)
        : target.scopes
          ? scopesDispatch(target.root, target.scopes)
          : null;
  const trace = readTrace(target.root, target.files, { real: !constrained });
  const atts = readAttestations(target.root);
  const snap = buildSnapshot(target, ledgers, dispatch, trace, attestationsOf(target, atts));
  markRemoved(snap, atts);
  markUnsigned(snap);
  return snap;
}

/**
 * The status snapshot of one scope (or of the ledgers `keep` names) from the read a verb already holds (`kbz next`'s facts read):
 * every ledger's text, dispatch.json and the records come from that read, so nothing is opened
 * twice and the read's consistency pass covers what this adds.
 */
export function scopeSnapshot(
  inputs: ScopeInputs,
  trace: TraceData,
  atts: RootAttestations | null,
  keep: (file: string) => boolean = () => true,
): Snapshot {
  const whole = inputs.target();
  // `keep` builds only the ledgers an answer needs (a cascade: the ledgers with a stale gate).
  const target = { ...whole, files: whole.files.filter(keep) };
  const scopeDir = path.join(target.root, ".unlazy", inputs.scope);
  const ledgers = target.files.map((f) => {
    const rel = path.relative(scopeDir, f).split(path.sep).join("/");
    let text: string | null;
    try {
      text = inputs.text(rel);
    } catch (e) {
      if (e instanceof ReadError) return ledgerEntry(f, target.root, { line: e.line ?? 1, message: e.message });
      throw e;
    }
    if (text === null) return ledgerEntry(f, target.root, { line: 1, message: "no such gate file" });
    const parse = inputs.ledger ? (t: string, stem: string) => inputs.ledger!(rel, t, stem) : undefined;
    return ledgerEntry(f, target.root, { text }, parse);
  });
  const dispatch =
    target.discoveryErrors.length > 0
      ? null
      : aggregateOf(target.root, inputs.scope, () => {
          const text = inputs.dispatchText();
          if (text === null) return null;
          try {
            return parseDispatch(text);
          } catch (e) {
            if (e instanceof DispatchStateError)
              throw new DispatchStateError(e.message, e.wave, waveLine(text, e.wave));
            throw e;
          }
        });
  const snap = buildSnapshot(target, ledgers, dispatch, trace, attestationsOf(target, atts));
  markRemoved(snap, atts);
  markUnsigned(snap);
  return snap;
}

/** No ledger anywhere: say where kbz looked, and that `kbz init` writes the first one. */
export function noLedgers(root: string): UsageError {
  return new UsageError(
    `no gate files found (looked for .unlazy/<scope>/, then GATES.md and gates/*.md under ${root})`,
    {
      hint: `${kbz("init")} writes a starter GATES.md here (${kbz("demo")} shows a worked example)`,
    },
  );
}

export interface TargetRequest {
  root?: string; // default: the current directory
  files: string[]; // explicit ledgers; empty means discover
  scope?: string | null; // --scope, else the UNLAZY_SCOPE value the caller passes
  /** Judge the solo ledgers together with a scope (status, the Stop hook). */
  solo?: boolean;
}

/** Resolve what a command targets and load it (usage problems are thrown, file problems returned). */
export function snapshotForRequest(req: TargetRequest): Snapshot {
  if (req.files.length > 0 && req.scope) throw new UsageError("explicit ledger files cannot be combined with --scope");
  const root = canonicalRoot(req.root ?? process.cwd());
  const resolved = resolveTarget({ root, files: req.files, scope: req.files.length > 0 ? null : req.scope || null });
  const target = req.solo ? withSoloLedgers(resolved) : resolved;
  if (target.mode === "none" && hasAttestedLedgers(root)) {
    // Every ledger is gone, but kbz attested gates here: they are REMOVED, not "no ledgers".
    return loadSnapshot({ ...target, mode: "legacy" });
  }
  if (target.mode === "none") {
    throw noLedgers(root);
  }
  return loadSnapshot(target);
}

/**
 * The scope's dispatch aggregate (docs/formats.md#dispatch), read through the coordination adapter. Never throws
 * for a bad state: an invalid state is a blocking item plus `error`, so callers decide whether to
 * fail (status: exit 2) or block (hook). A lease this clone held and the coordinator lost is a
 * blocking item too: the holder must claim again before it edits those paths.
 */
export function dispatchStatus(root: string, scope: string | null): DispatchAggregate {
  if (!scope) return { resolved: [], blocking: [], abandoned: [], error: null };
  return aggregateOf(root, scope, () => coordination(root).dispatch(scope).state);
}

/** The aggregate of a scope's dispatch state as `state` reads it (null: no dispatch.json), with the leases lost. */
function aggregateOf(root: string, scope: string, state: () => DispatchState | null): DispatchAggregate {
  let agg: DispatchAggregate;
  try {
    agg = aggregateDispatch(state() ?? emptyDispatch());
  } catch (e) {
    if (e instanceof DispatchStateError) return invalidAggregate(`invalid dispatch state: ${e.message}`, e.line);
    throw e;
  }
  for (const l of coordination(root).lost(scope)) {
    agg.resolved.push(`lease:${l.leaf}=lost`);
    agg.blocking.push(
      `lease:${l.leaf} lost (${escapeField(l.reason, 200)}); run ${kbz("scope claim", { scope, leaf: l.leaf })} before editing ${escapeField(l.globs.join(", "), 200)}`,
    );
  }
  return agg;
}

/**
 * The dispatch states of several scopes judged together (the Stop hook with more than one scope),
 * as one aggregate: each item names its scope (`api/dispatch:w1 open (1/1 started)`), so an open
 * wave blocks whichever scopes are judged with it. The first invalid state is the error.
 */
function scopesDispatch(root: string, scopes: string[]): DispatchAggregate {
  const out: DispatchAggregate = { resolved: [], blocking: [], abandoned: [], error: null };
  for (const scope of scopes) {
    const one = dispatchStatus(root, scope);
    out.resolved.push(...one.resolved.map((r) => `${scope}/${r}`));
    out.blocking.push(...one.blocking.map((b) => `${scope}/${b}`));
    out.abandoned.push(...one.abandoned.map((a) => `${scope}/${a}`));
    if (one.running) (out.running ??= []).push(...one.running);
    if (one.error && out.error === null) {
      out.error = `scope ${scope}: ${one.error}`;
      if (one.errorLine !== undefined) out.errorLine = one.errorLine;
    }
  }
  return out;
}
