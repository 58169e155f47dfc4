// Property tests (issue 8): any single-byte change to any declared input, any gate definition or
// any declared environment value makes the audit stale; check marks and evidence alone do not
// move the context fingerprint. Seeded, so a failure reproduces from its seed.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { inspectReceipt } from "../../../src/io/receipts/audit.ts";
import { computeContext, type Policy } from "../../../src/io/receipts/context.ts";
import { readLedger } from "../../../src/io/receipts/ledger.ts";
import { RECEIPTS_FILE } from "../../../src/io/receipts/file.ts";
import { sha256Hex } from "../../../src/core/util/hash.ts";
import { tempDir, writeTree } from "../../helpers/kbz.ts";
import { prng } from "../../helpers/prng.ts";

const ROUNDS = 60;
const SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";

interface Field {
  gate: number;
  key: "title" | "CHECK" | "EXPECT" | "CWD";
}

function ledgerText(fields: string[][], marks: string[], evidence: (string | null)[]): string {
  let out = "# Gates: property\n\nSome prose.\n\n";
  fields.forEach(([title, check, expect, cwd], i) => {
    out += `- [${marks[i]}] G${i}: ${title}\n  CHECK: ${check}\n  EXPECT: ${expect}\n  CWD: ${cwd}\n`;
    if (evidence[i] !== null) out += `  EVIDENCE: ${evidence[i]}\n`;
    out += "\n";
  });
  return out;
}

function setup(seed: number) {
  const rnd = prng(seed);
  const root = tempDir("kbz-receipt-prop-");
  const files: Record<string, Uint8Array> = {};
  for (let i = 0; i < 6; i++) {
    const bytes = new Uint8Array(1 + Math.floor(rnd() * 40));
    for (let k = 0; k < bytes.length; k++) bytes[k] = Math.floor(rnd() * 256);
    files[i % 2 ? `src/f${i}.bin` : `lib/deep/f${i}.txt`] = bytes;
  }
  writeTree(root, files);
  const fields = [0, 1, 2].map((i) => [`outcome ${i} holds`, `node check${i}.mjs --flag`, `OK_${i}`, `sub${i}`]);
  const policy: Policy = { inputs: ["lib", "src"], env: ["API_MODE", "REGION"], closed: true };
  const env = { API_MODE: "live-mode", REGION: "eu-west-1", PATH: "/usr/bin:/bin" };
  return { rnd, root, files, fields, policy, env };
}

const ctx = (root: string, policy: Policy, env: Record<string, string>) =>
  computeContext(root, readLedger(root, "GATES.md"), policy, { env }).value;

function acceptNow(root: string, policy: Policy, env: Record<string, string>): void {
  const led = readLedger(root, "GATES.md");
  const c = computeContext(root, led, policy, { env });
  writeTree(root, {
    [RECEIPTS_FILE]: JSON.stringify({
      schema: 1,
      receipts: {
        "GATES.md": {
          status: "accepted",
          policy,
          context: c.value,
          ledgerHash: sha256Hex(led.text),
          fingerprint: c.fingerprint,
        },
      },
    }),
  });
}

function flipByte(bytes: Uint8Array, rnd: () => number): Uint8Array {
  const out = new Uint8Array(bytes);
  const at = Math.floor(rnd() * out.length);
  out[at] = (out[at]! + 1 + Math.floor(rnd() * 255)) % 256; // always a different byte
  return out;
}

function flipChar(s: string, rnd: () => number): string {
  const at = Math.floor(rnd() * s.length);
  let c = s[at]!;
  while (c === s[at]) c = SAFE[Math.floor(rnd() * SAFE.length)]!;
  return s.slice(0, at) + c + s.slice(at + 1);
}

describe("receipt fingerprint properties", () => {
  test(`any single-byte change to any declared input makes the audit stale (${ROUNDS} seeds)`, () => {
    for (let seed = 1; seed <= ROUNDS; seed++) {
      const { rnd, root, files, fields, policy, env } = setup(seed);
      writeTree(root, { "GATES.md": ledgerText(fields, [" ", " ", " "], ["pending", "pending", "pending"]) });
      acceptNow(root, policy, env);
      const names = Object.keys(files);
      const victim = names[Math.floor(rnd() * names.length)]!;
      writeTree(root, { [victim]: flipByte(files[victim]!, rnd) });
      const r = inspectReceipt(root, "GATES.md", { env });
      expect({ seed, r }).toEqual({
        seed,
        r: { current: false, reason: "changed-ledger-or-evidence", key: "GATES.md" },
      });
      // The ledger is unmet (rule 5 wins); the context alone must have moved too.
      const stored = JSON.parse(fs.readFileSync(path.join(root, RECEIPTS_FILE), "utf8")).receipts["GATES.md"].context;
      expect({ seed, moved: ctx(root, policy, env) !== stored }).toEqual({ seed, moved: true });
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test(`any single-character change to any gate definition moves the context (${ROUNDS} seeds)`, () => {
    const keys: Field["key"][] = ["title", "CHECK", "EXPECT", "CWD"];
    for (let seed = 1; seed <= ROUNDS; seed++) {
      const { rnd, root, fields, policy, env } = setup(seed);
      const marks = [" ", "x", " "];
      const evidence = ["pending", "reviewed", "pending"];
      writeTree(root, { "GATES.md": ledgerText(fields, marks, evidence) });
      const before = ctx(root, policy, env);
      const gate = Math.floor(rnd() * fields.length);
      const key = Math.floor(rnd() * keys.length);
      const changed = fields.map((f) => [...f]);
      changed[gate]![key] = flipChar(changed[gate]![key]!, rnd);
      writeTree(root, { "GATES.md": ledgerText(changed, marks, evidence) });
      expect({ seed, gate, field: keys[key], moved: ctx(root, policy, env) !== before }).toEqual({
        seed,
        gate,
        field: keys[key],
        moved: true,
      });
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test(`any single-byte change to a declared environment value, or unsetting it, moves the context (${ROUNDS} seeds)`, () => {
    for (let seed = 1; seed <= ROUNDS; seed++) {
      const { rnd, root, fields, policy, env } = setup(seed);
      writeTree(root, { "GATES.md": ledgerText(fields, [" ", " ", " "], [null, null, null]) });
      const before = ctx(root, policy, env);
      const name = policy.env[Math.floor(rnd() * policy.env.length)] as "API_MODE" | "REGION";
      const changed = { ...env, [name]: flipChar(env[name], rnd) };
      expect({ seed, name, moved: ctx(root, policy, changed) !== before }).toEqual({ seed, name, moved: true });
      const unset: Record<string, string> = { ...env };
      delete unset[name];
      expect(ctx(root, policy, unset)).not.toBe(before);
      // An undeclared variable is not bound.
      expect(ctx(root, policy, { ...env, UNRELATED: String(seed) })).toBe(before);
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test(`check marks and evidence alone never move the context (${ROUNDS} seeds)`, () => {
    const MARKS = [" ", "x", "X"];
    for (let seed = 1; seed <= ROUNDS; seed++) {
      const { rnd, root, fields, policy, env } = setup(seed);
      writeTree(root, { "GATES.md": ledgerText(fields, [" ", " ", " "], ["pending", "pending", "pending"]) });
      const before = ctx(root, policy, env);
      const marks = fields.map(() => MARKS[Math.floor(rnd() * 3)]!);
      const evidence = fields.map(() =>
        rnd() < 0.25 ? null : rnd() < 0.5 ? "pending" : `checked by hand, run ${Math.floor(rnd() * 1e6)}`,
      );
      writeTree(root, { "GATES.md": ledgerText(fields, marks, evidence) });
      expect({ seed, marks, evidence, moved: ctx(root, policy, env) !== before }).toEqual({
        seed,
        marks,
        evidence,
        moved: false,
      });
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
