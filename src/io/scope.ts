// One scope's inputs, read once (docs/formats.md#stable-reads): ScopeReader hands PLAN.md,
// ACCESS.json, the ledgers, dispatch.json and the leases to the pure builders through the
// ScopeInputs port, and for `kbz next` and the dashboard proves the whole set unchanged in one
// consistency pass. It stands above the coordination port (leases, dispatch.json and leaf
// states come through it) and below the use cases that build views from it (ops/facts.ts).
import type * as fs from "node:fs";
import * as path from "node:path";
import { ReadError } from "../core/errors.ts";
import { decodeLedgerText, MAX_LEDGER_BYTES } from "../core/text/decode.ts";
import type { ScopeInputs } from "../core/workspace/inputs.ts";
import type { Target } from "../core/workspace/target.ts";
import { leaseSignature, type LeaseRecord } from "../core/dispatch/lease-record.ts";
import { parseLedger } from "../core/ledger/parse.ts";
import type { Ledger } from "../core/ledger/model.ts";
import type { RowState } from "../core/plan/table.ts";
import { resolveTarget } from "./discover.ts";
import { coordination } from "./coordination/active.ts";
import { currentStat, readStableForPass, readStableWith, sameFileState, type ScopeTextCache } from "./read.ts";

export type ScopeChange = "inputs" | "leases" | "inventory";

/**
 * One scope's inputs, each read once and recorded with the descriptor's stat. With
 * `consistencyPass`, reads skip their own after-read lstat and `changed` proves them whole
 * instead: it re-reads only files whose identity, type, size or times moved, so an unchanged
 * scope costs one lstat per file to confirm. Without it every read checks itself (and the
 * reads are also held inside the root by realpath).
 */
export class ScopeReader implements ScopeInputs {
  readonly entries: [string, string | null][] = [];
  private readonly texts = new Map<string, string | null>();
  private readonly stats: (fs.BigIntStats | null)[] = [];
  private readonly scopeDir: string;
  private readonly dirs: string[];
  private readonly dirIds: (fs.BigIntStats | null)[];
  private readonly checks: (() => boolean)[] = [];
  private readonly realDirs = new Map<string, string>();
  private resolved: Target | null = null;
  private leaseRecords: LeaseRecord[] | null = null;

  /** Use `readConsistent` for a reader with the consistency pass. */
  constructor(
    readonly root: string,
    readonly scope: string,
    private readonly pass = false,
    private readonly cache: ScopeTextCache | null = null,
  ) {
    this.scopeDir = path.join(root, ".unlazy", scope);
    // Discovery proves these are real directories inside the root; files are opened without
    // following a final link, so pinning the directories' identities keeps every read inside.
    this.dirs = pass ? [path.join(root, ".unlazy"), this.scopeDir, path.join(this.scopeDir, "gates")] : [];
    this.dirIds = this.dirs.map(currentStat);
  }

  text(rel: string): string | null {
    const known = this.texts.get(rel);
    if (known !== undefined) return known;
    const file = path.join(this.scopeDir, rel);
    const { text, stat } = this.read(file, rel);
    this.texts.set(rel, text);
    this.stats.push(stat);
    this.entries.push([path.sep + rel.split("/").join(path.sep), text]);
    return text;
  }

  target(): Target {
    return (this.resolved ??= resolveTarget({ root: this.root, scope: this.scope }));
  }

  leases(): LeaseRecord[] {
    return (this.leaseRecords ??= coordination(this.root).leases());
  }

  dispatchText(): string | null {
    // The files adapter calls back into this reader, so the consistency pass covers dispatch.json.
    return coordination(this.root).dispatchText(this.scope, () => this.text("dispatch.json"));
  }

  leafStates(): ReadonlyMap<string, RowState> | null {
    return coordination(this.root).leafStates(this.scope);
  }

  alsoCheck(changed: () => boolean): void {
    this.checks.push(changed);
  }

  /**
   * What moved since it was read, or null. This pass is what proves each read whole when the
   * reads skipped their own lstat: a name that now leads elsewhere, or an inode whose size or
   * times moved, is re-read and its text compared.
   */
  changed(): ScopeChange | null {
    if (this.dirs.map(currentStat).some((st, k) => !sameState(st, this.dirIds[k]!))) return "inputs";
    for (let k = 0; k < this.entries.length; k++) {
      const [suffix, text] = this.entries[k]!;
      const file = this.scopeDir + suffix;
      if (!sameState(currentStat(file), this.stats[k]!) && this.readFile(file, suffix.slice(1)).text !== text)
        return "inputs";
    }
    if (this.checks.some((c) => c())) return "inputs";
    if (
      this.leaseRecords !== null &&
      leaseSignature(coordination(this.root).leases()) !== leaseSignature(this.leaseRecords)
    )
      return "leases";
    if (
      this.resolved !== null &&
      resolveTarget({ root: this.root, scope: this.scope }).files.join("\n") !== this.resolved.files.join("\n")
    )
      return "inventory";
    return null;
  }

  ledger(rel: string, text: string, stem: string): Ledger {
    return this.cache ? this.cache.ledger(path.join(this.scopeDir, rel), text, stem) : parseLedger(text, stem);
  }

  /** Every file this reader asked for (the cache keeps just these). */
  files(): Set<string> {
    return new Set(this.entries.map(([suffix]) => this.scopeDir + suffix));
  }

  private read(file: string, rel: string): { text: string | null; stat: fs.BigIntStats | null } {
    // Only with the consistency pass: it is what proves a cached text is still the file's.
    if (this.cache && this.pass) {
      const hit = this.cache.get(file, currentStat(file));
      if (hit) return hit;
    }
    const fresh = this.readFile(file, rel);
    this.cache?.set(file, fresh.stat, fresh.text);
    return fresh;
  }

  private readFile(file: string, rel: string): { text: string | null; stat: fs.BigIntStats | null } {
    let read: { decoded: ReturnType<typeof decodeLedgerText>; stat: fs.BigIntStats };
    try {
      const opts = {
        label: path.basename(file),
        maxBytes: MAX_LEDGER_BYTES,
        root: this.pass ? undefined : this.root,
        realDirs: this.realDirs,
      };
      const use = (bytes: Buffer, stat: fs.BigIntStats) => ({ decoded: decodeLedgerText(bytes), stat });
      read = this.pass ? readStableForPass(file, opts, use) : readStableWith(file, opts, use);
    } catch (e) {
      if (e instanceof ReadError && e.code === "ENOENT") return { text: null, stat: null };
      if (e instanceof ReadError) throw new ReadError(e.message, e.code, rel);
      throw e;
    }
    if (!("text" in read.decoded)) throw new ReadError(read.decoded.message, "DECODE", rel, read.decoded.line);
    return { text: read.decoded.text, stat: read.stat };
  }
}

function sameState(a: fs.BigIntStats | null, b: fs.BigIntStats | null): boolean {
  return a === null || b === null ? a === b : sameFileState(a, b);
}

export interface ConsistentReadOptions {
  /** Called once every input is read, before the consistency pass (tests change files here). */
  beforeConsistencyCheck?: () => void;
  /** Texts of unchanged files from the previous read of this scope (a long-lived reader). */
  cache?: ScopeTextCache;
}

/**
 * Build a view from one scope read with the consistency pass: `build` reads through the port,
 * then every input must still be what it read, else `changed` says what moved and throws or
 * returns the view to hand out instead.
 */
export function readConsistent<T>(
  root: string,
  scope: string,
  build: (inputs: ScopeInputs) => T,
  changed: (what: ScopeChange, built: T) => T,
  opts: ConsistentReadOptions = {},
): T {
  const reader = new ScopeReader(root, scope, true, opts.cache ?? null);
  const value = build(reader);
  opts.beforeConsistencyCheck?.();
  const moved = reader.changed();
  opts.cache?.retain(reader.files());
  return moved === null ? value : changed(moved, value);
}
