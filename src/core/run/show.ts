// How an oracle is shown to a person and in evidence: pure text facts (the PATH's transcript and
// fingerprint, the CHECK directory, the sandbox line, the short signature). Every edge (the CLI,
// the dashboard, the checker's transcript) prints them through these, so they read the same.
import * as path from "node:path";
import { sha256Hex } from "../ledger/digest.ts";

export interface PathFacts {
  /** The full PATH string: bound into the approval oracle. */
  value: string;
  /** What the transcript shows: CR/LF as spaces, first 800 characters. */
  transcript: string;
  /** What evidence records: `<12 hex of sha256(PATH)>/<entries> entries`. */
  fingerprint: string;
}

export function pathFacts(value: string): PathFacts {
  const count = value ? value.split(path.delimiter).length : 0;
  const flat = value.replace(/[\r\n]/g, " ");
  return {
    value,
    transcript: flat.length > 800 ? flat.slice(0, 800) + "..." : flat,
    fingerprint: `${sha256Hex(value).slice(0, 12)}/${count} entries`,
  };
}

export interface SandboxProfile {
  engine: string; // the resolved bwrap
  network: "none";
  home: string; // replaced by an empty directory
  tmp: "private";
  pid: "private";
  /** Real paths that stay writable: the repository first, then the declared ones, sorted. */
  writable: string[];
  /** Paths replaced by empty directories or removed (the vacuity probe, issue 18). */
  hidden?: string[];
  /** Issue 28 item 12: the probe's CHECK sees the repository through a throwaway overlay (view.ts). */
  view?: "overlay";
  /** Issue 28: every capability dropped; root also gets a user namespace of its own. */
  capabilities?: "none";
  /** Issue 28: git directories inside a writable path, bound read-only over it. */
  readOnly?: string[];
  /** Issue 28: socket directories replaced by a fresh empty tmpfs (/run, $XDG_RUNTIME_DIR, ...). */
  emptied?: string[];
  /**
   * Issue 42 item 2: where a `.git` is missing in a writable folder that git would find from the
   * repository (the root and the folders above it, up to the first `.git`): covered read-only, so
   * a CHECK cannot plant a repository whose config kbz's own git would read.
   */
  noGit?: string[];
  /**
   * Issue 42 item 3: the sandbox's filesystem is a fresh read-only root holding only these host
   * folders, read-only: the system's (`/usr`, `/etc`, `/bin`, `/sbin`, `/lib*` that exist), the
   * CHECK's PATH folders and the settings' `"readable"` paths (real paths), plus the repository,
   * the writable paths, /dev, /proc, a private /tmp and an empty $HOME. Absent in older profiles
   * (the whole host filesystem, read-only).
   */
  readable?: string[];
  /** Issue 42 item 3: host folders shown as empty, read-only folders (`/var`, `/srv`, `/home`, ...). */
  empty?: string[];
}

/** One line for an approval prompt: what the sandbox allows and hides. */
export function sandboxLine(p: SandboxProfile): string {
  const hidden = p.hidden && p.hidden.length > 0 ? `; hidden: ${p.hidden.join(", ")}` : "";
  const caps = p.capabilities === "none" ? "; no capabilities" : "";
  const ro = p.readOnly && p.readOnly.length > 0 ? `; read-only: ${p.readOnly.join(", ")}` : "";
  const emptied = p.emptied && p.emptied.length > 0 ? `, ${p.emptied.join(", ")}` : "";
  const view = p.view === "overlay" ? " (through a throwaway overlay)" : "";
  const noGit = p.noGit && p.noGit.length > 0 ? `; no new ${p.noGit.join(", ")}` : "";
  const readable = p.readable ? `; read-only: ${p.readable.join(", ")}, nothing else of the host` : "";
  const empty = p.empty && p.empty.length > 0 ? `, ${p.empty.join(", ")}` : "";
  return `bwrap (${p.engine}); no network${caps}; writable: ${p.writable.join(", ")}${view}${ro}${noGit}${readable}; private /tmp; empty ${p.home}${emptied}${empty}${hidden}`;
}

/** The signature as kbz prints it per pending oracle: 12 hex digits, what `--approve=<sig>` takes. */
export function shortSignature(signature: string): string {
  return signature.slice(0, 12);
}

/** The CWD as written, and its real path when they differ (the approval binds the real one). */
export function cwdShown(t: { cwd: string; oracle: { cwd: string } }): string {
  return t.cwd === t.oracle.cwd ? t.cwd : `${t.cwd} (real path ${t.oracle.cwd})`;
}
