// The recursion guard (issue 15): each CHECK's environment carries the chain of ledger:gate
// being checked above it, so a nested `kbz check` refuses to re-run a gate already on the
// chain (a cycle) and refuses to nest deeper than MAX_CHECK_DEPTH.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Env } from "../run/shell.ts";
import { kbz } from "../../core/text/command.ts";

export const CHAIN_ENV = "KBZ_CHECK_CHAIN";
export const MAX_CHECK_DEPTH = 8;

/** The chain this process inherited; junk in the variable is an empty chain plus nothing. */
export function inheritedChain(env: Env): string[] {
  const raw = env[CHAIN_ENV];
  if (!raw) return [];
  try {
    const v = JSON.parse(raw);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** A gate's place on the chain: the ledger's real path and the gate id. */
export function chainKey(file: string, gateId: string): string {
  let real = path.resolve(file);
  try {
    real = fs.realpathSync(real);
  } catch {}
  return `${real}:${gateId}`;
}

const shown = (key: string, root: string) => {
  const rel = path.relative(root, key);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : key;
};

/** Why this gate may not run under `chain`, or null when it may. */
export function chainRefusal(chain: string[], key: string, root: string): string | null {
  const at = chain.indexOf(key);
  if (at >= 0) return `recursion refused: cycle ${[...chain.slice(at), key].map((k) => shown(k, root)).join(" -> ")}`;
  if (chain.length >= MAX_CHECK_DEPTH) {
    return `recursion refused: ${kbz("check")} nested deeper than ${MAX_CHECK_DEPTH} (${[...chain, key].map((k) => shown(k, root)).join(" -> ")})`;
  }
  return null;
}

/** The environment a gate's CHECK runs with: the chain extended by this gate. */
export function childEnv(env: Env, chain: string[], key: string): Env {
  return { ...env, [CHAIN_ENV]: JSON.stringify([...chain, key]) };
}
