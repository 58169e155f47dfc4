// kbz scope: list scopes, claim and release OWNS leases, append to the status log, bind a session.
import { UsageError } from "../core/errors.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { stemOf } from "../core/ledger/model.ts";
import { displayPath } from "../core/snapshot.ts";
import {
  appendLog,
  bindSession,
  claimLeaf,
  releaseInvalid,
  releaseLeases,
  scopesAndLeases,
  type ClaimConflict,
  type LeaseRecord,
} from "../ops/scope.ts";
import { leafFor } from "./context.ts";
import { emit, envelope, report, type ExitCode } from "./envelope.ts";
import type { Verb } from "./index.ts";
import { err, out } from "./output.ts";
import { printNotes, requestedScope, resolvedScope, rootOf, unknownAction, type PipelineArgs } from "./pipeline.ts";

interface ScopeArgs extends PipelineArgs {
  leaf?: string;
  invalid?: boolean;
  "--"?: string[];
}

const ACTIONS = ["list", "claim", "release", "log", "bind"];

// Hand-written kbz commands: help text in aligned columns, read as written (its flags are checked
// by test/core/text/kbz-strings.test.ts).
const HELP = `Actions:
  kbz scope list                             scopes and every lease held
  kbz scope claim [--scope S] [--leaf LEAF]  lease the leaf ledger's OWNS paths
  kbz scope release --scope S [--leaf LEAF]  release a leaf's or the scope's leases
  kbz scope release --invalid                remove corrupt lease records
  kbz scope log [--scope S] TEXT             append TEXT to the scope's status.log
  kbz scope bind [--scope S] SESSION         bind an agent session to the scope
kbz next --launch claims for you. A retry of a claim is exit 0 (ALREADY CLAIMED).
Exit: 0 done; 1 claim refused by a conflicting lease (unlazy used 3); 2 usage or error.`;

function leaseJson(root: string, r: LeaseRecord) {
  return r.invalid
    ? {
        scope: r.scope,
        leaf: r.leaf,
        globs: r.globs,
        pid: null,
        file: displayPath(root, r.file),
        invalid: true,
        problem: r.problem,
      }
    : {
        scope: r.scope,
        leaf: r.leaf,
        globs: r.globs,
        pid: r.pid,
        file: displayPath(root, r.file),
        invalid: false,
        problem: null,
      };
}

function invalidHint(root: string, r: LeaseRecord): string {
  return r.invalid
    ? `  invalid lease record ${displayPath(root, r.file)} (${r.problem}) blocks every claim; once no agent relies on it, remove it with: ${kbz("scope release", { invalid: true })}`
    : "";
}

function list(argv: ScopeArgs): ExitCode {
  const root = rootOf(argv);
  const { scopes, leases } = scopesAndLeases(root);
  if (argv.json)
    return emit(envelope("ok", 0, { action: "list", root, scopes, leases: leases.map((l) => leaseJson(root, l)) }));
  if (scopes.length === 0) out("(no scopes under .unlazy/)");
  for (const s of scopes) out(s);
  if (leases.length > 0) out("leases:");
  for (const l of leases) out(l.invalid ? invalidHint(root, l) : `  ${l.scope}/${l.leaf}: ${l.globs.join(", ")}`);
  return 0;
}

function conflictLine(c: ClaimConflict): string {
  if (c.kind === "identity")
    return `CONFLICT ${c.holder.scope}/${c.holder.leaf} already holds a live lease; release it before claiming again`;
  return `CONFLICT ${c.glob} overlaps ${c.theirGlob} held by ${c.holder.scope}/${c.holder.leaf}`;
}

async function claim(argv: ScopeArgs): Promise<ExitCode> {
  const root = rootOf(argv);
  const target = resolvedScope(root, argv, "claim");
  const stems = target.files.map((f) => stemOf(f));
  let index: number;
  if (argv.leaf !== undefined) {
    index = stems.indexOf(leafFor(String(argv.leaf), stems));
  } else if (stems.length === 1) {
    index = 0;
  } else {
    throw new UsageError(
      stems.length === 0
        ? `scope ${target.scope} has no gate files to claim for`
        : "claim needs --leaf NAME when a scope has several gate files",
    );
  }
  const leaf = stems[index]!;
  const { result, held, owns, logWarning } = await claimLeaf(root, target.scope, leaf, target.files[index]!);
  printNotes(result.notes);
  if (result.ok) {
    if (logWarning) err(logWarning);
    const globs = result.lease.globs;
    return report(
      !!argv.json,
      envelope("claimed", 0, { action: "claim", ok: true, scope: target.scope, leaf, globs, conflicts: [] }),
      () => out(`CLAIMED ${globs.length} path(s) for ${target.scope}/${leaf}: ${globs.join(", ")}`),
    );
  }
  // A retry after a crash or a lost reply: this leaf already holds exactly these paths.
  if (held) {
    return report(
      !!argv.json,
      envelope("already-claimed", 0, {
        action: "claim",
        ok: true,
        scope: target.scope,
        leaf,
        globs: held.globs,
        conflicts: [],
      }),
      () =>
        out(
          `ALREADY CLAIMED ${held.globs.length} path(s) for ${target.scope}/${leaf}: ${held.globs.join(", ")} (this leaf holds the lease; nothing changed)`,
        ),
    );
  }
  if (argv.json) {
    emit(
      envelope("refused", 1, {
        action: "claim",
        ok: false,
        scope: target.scope,
        leaf,
        globs: owns,
        conflicts: result.conflicts.map((c) =>
          c.kind === "identity"
            ? { kind: c.kind, glob: null, theirGlob: null, holder: leaseJson(root, c.holder) }
            : { kind: c.kind, glob: c.glob, theirGlob: c.theirGlob, holder: leaseJson(root, c.holder) },
        ),
      }),
    );
    return 1;
  }
  for (const c of result.conflicts) out(conflictLine(c));
  const invalid = new Set(result.conflicts.flatMap((c) => (c.holder.invalid ? [c.holder.file] : [])));
  for (const f of invalid) out(invalidHint(root, result.conflicts.find((c) => c.holder.file === f)!.holder));
  out(`CLAIM REFUSED (${result.conflicts.length} conflict(s))`);
  return 1;
}

async function release(argv: ScopeArgs): Promise<ExitCode> {
  const root = rootOf(argv);
  if (argv.invalid) {
    if (argv.scope !== undefined || argv.leaf !== undefined)
      throw new UsageError("--invalid cannot be combined with --scope or --leaf");
    const { removed, notes } = await releaseInvalid(root);
    printNotes(notes);
    if (argv.json)
      return emit(
        envelope("released", 0, { action: "release-invalid", removed: removed.map((r) => leaseJson(root, r)) }),
      );
    for (const r of removed) out(`removed invalid lease record ${displayPath(root, r.file)} (${r.problem})`);
    out(`removed ${removed.length} invalid lease record(s)`);
    return 0;
  }
  // An explicit scope is honoured even when its directory is gone: that is how orphans are released.
  const scope = requestedScope(argv) ?? resolvedScope(root, argv, "release").scope;
  const leaf = argv.leaf ?? null;
  const { released, alreadyLost, notes, logWarning } = await releaseLeases(root, scope, leaf);
  printNotes(notes);
  for (const l of alreadyLost)
    err(`kbz: warning: lease ${l.scope}/${l.leaf} was already lost before this release (${l.reason})`);
  const who = leaf === null ? scope : `${scope}/${leaf}`;
  if (logWarning) err(logWarning);
  return report(
    !!argv.json,
    envelope("released", 0, {
      action: "release",
      scope,
      leaf,
      released: released.length,
      leases: released.map((r) => leaseJson(root, r)),
    }),
    () => out(`released ${released.length} lease(s) for ${who}`),
  );
}

/** The words of TEXT/SESSION, including every word after `--` (so a text may start with `-`). */
function words(argv: ScopeArgs): string[] {
  return [...(argv.args ?? []), ...(argv["--"] ?? [])].map(String);
}

function text(argv: ScopeArgs): string {
  return words(argv).join(" ");
}

async function log(argv: ScopeArgs): Promise<ExitCode> {
  const root = rootOf(argv);
  const target = resolvedScope(root, argv, "log");
  const line = text(argv);
  if (line.trim() === "") throw new UsageError("log needs non-blank text");
  const file = await appendLog(root, target.scope, line);
  return report(!!argv.json, envelope("appended", 0, { action: "log", scope: target.scope, file }), () =>
    out(`appended to ${file}`),
  );
}

async function bind(argv: ScopeArgs): Promise<ExitCode> {
  const root = rootOf(argv);
  const target = resolvedScope(root, argv, "bind");
  const args = words(argv);
  if (args.length !== 1)
    throw new UsageError("bind needs exactly one SESSION id", {
      hint: `${kbz("scope bind", { scope: ph("S") }, ph("SESSION"))} (use -- SESSION when it starts with -)`,
    });
  const id = await bindSession(root, target.scope, String(args[0]));
  return report(!!argv.json, envelope("bound", 0, { action: "bind", scope: target.scope, session: id }), () =>
    out(`bound session ${id} to scope ${target.scope}`),
  );
}

export async function runScope(argv: ScopeArgs): Promise<ExitCode> {
  if (argv.action !== "claim" && argv.action !== "release" && argv.leaf !== undefined)
    throw new UsageError(`--leaf does not apply to scope ${argv.action}`);
  if (argv.action !== "release" && argv.invalid) throw new UsageError("--invalid only applies to scope release");
  if ((argv.action === "list" || argv.action === "claim" || argv.action === "release") && words(argv).length > 0) {
    throw new UsageError(`scope ${argv.action} takes no positional arguments`);
  }
  switch (argv.action) {
    case "list":
      return list(argv);
    case "claim":
      return claim(argv);
    case "release":
      return release(argv);
    case "log":
      return log(argv);
    case "bind":
      return bind(argv);
    default:
      throw unknownAction("scope", argv.action, ACTIONS);
  }
}

export const verb: Verb = {
  command: "scope <action> [args..]",
  describe: "scopes and OWNS leases: list, claim, release, log TEXT, bind SESSION",
  builder: (y) =>
    y
      .positional("action", { type: "string", describe: ACTIONS.join(" | ") })
      .positional("args", { type: "string", array: true, describe: "TEXT for log, SESSION for bind" })
      .option("scope", { type: "string", describe: "use .unlazy/ID (or UNLAZY_SCOPE)", requiresArg: true })
      .option("leaf", { type: "string", describe: "leaf id: leaf-1.2 or 1.2", requiresArg: true })
      .option("invalid", { type: "boolean", describe: "with release: remove corrupt lease records" })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(HELP),
  handler: (argv) => runScope(argv as ScopeArgs),
};
