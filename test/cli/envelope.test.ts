// One contract for agents: every verb's --json is one envelope line on stdout (schema, exit,
// verdict, errors[{file,line,message,hint}]), for successes and failures alike. This walks every
// verb that takes --json, once with a run that works and once with one that fails.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "../helpers/approvals.ts";
import { runCli } from "../helpers/cli.ts";
import { fixtureCopy, tempDir, writeTree } from "../helpers/kbz.ts";

interface Case {
  name: string;
  args: string[];
  /** Prepares the folder the verb runs in (a copy of next-golden unless it returns another). */
  setup?: (root: string) => string | void;
  exits: number[];
}

function expectEnvelope(stdout: string, exit: number): Record<string, unknown> {
  const lines = stdout.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  const o = JSON.parse(lines[0]!);
  expect(Object.keys(o).slice(0, 3)).toEqual(["schema", "exit", "verdict"]);
  expect(Object.keys(o).pop()).toBe("errors");
  expect([o.schema, o.exit, typeof o.verdict]).toEqual([1, exit, "string"]);
  expect(Array.isArray(o.errors)).toBe(true);
  for (const e of o.errors) {
    expect(Object.keys(e)).toEqual(["file", "line", "message", "hint"]);
    expect(typeof e.message).toBe("string");
    expect(e.file === null || typeof e.file === "string").toBe(true);
    expect(e.line === null || Number.isInteger(e.line)).toBe(true);
  }
  if (exit === 2) {
    expect(o.verdict).toBe("invalid");
    expect(o.errors.length).toBeGreaterThan(0);
    for (const e of o.errors) expect(typeof e.hint).toBe("string");
  } else expect(o.errors).toEqual([]);
  return o;
}

const LEDGER = "- [ ] G1: reviewed by a person\n  EVIDENCE: pending\n";

const ok: Case[] = [
  { name: "status", args: ["status"], exits: [1] },
  { name: "check --status", args: ["check", "--status"], exits: [1] },
  { name: "check", args: ["check"], exits: [1] },
  { name: "next", args: ["next"], exits: [0] },
  { name: "lint", args: ["lint", ".unlazy/api/gates/leaf-1.md"], exits: [0] },
  { name: "scope list", args: ["scope", "list"], exits: [0] },
  { name: "scope claim", args: ["scope", "claim", "--leaf", "1"], exits: [0] },
  { name: "scope release", args: ["scope", "release"], exits: [0] },
  { name: "scope log", args: ["scope", "log", "hello"], exits: [0] },
  { name: "scope bind", args: ["scope", "bind", "s-1"], exits: [0] },
  { name: "wave open", args: ["wave", "open", "--wave", "w1", "--leaf", "1"], exits: [0] },
  { name: "wave list", args: ["wave", "list"], exits: [0] },
  { name: "structure check", args: ["structure", "check"], setup: () => fixtureCopy("structure-golden"), exits: [0] },
  { name: "approvals list", args: ["approvals", "list"], exits: [0] },
  { name: "approvals prune", args: ["approvals", "prune"], exits: [0] },
  { name: "verify audit", args: ["verify", "audit", ".unlazy/api/gates/leaf-1.md"], exits: [1] },
  { name: "verify explain", args: ["verify", "explain", ".unlazy/api/gates/leaf-1.md"], exits: [1] },
  { name: "init", args: ["init"], setup: () => tempDir(), exits: [0] },
  { name: "skill install", args: ["skill", "install"], setup: () => tempDir(), exits: [0] },
  { name: "hook install", args: ["hook", "install"], setup: () => tempDir(), exits: [0] },
  { name: "hook status", args: ["hook", "status"], setup: () => tempDir(), exits: [0, 1] },
  { name: "plan set", args: ["plan", "set", "1", "IN-FLIGHT"], exits: [0] },
  { name: "sign", args: ["sign", ".unlazy/api/gates/leaf-1.md", "G1", "--evidence", "reviewed by Ann"], exits: [0] },
  {
    name: "approvals explain",
    args: ["approvals", "explain", "GATES.md", "G1"],
    setup: () => {
      const d = tempDir();
      writeTree(d, { "GATES.md": "- [ ] G1: prints ok\n  CHECK: echo ok\n  EXPECT: ok\n" });
      return d;
    },
    exits: [1],
  },
  {
    name: "kbz (no verb, a folder without ledgers: the built-in demo is shown)",
    args: [],
    setup: () => tempDir(),
    exits: [0],
  },
  {
    name: "kbz (no verb, not a terminal)",
    args: [],
    setup: (root) => void writeTree(root, { ".unlazy/api/GATES.md": LEDGER }),
    exits: [1],
  },
];

const failing: Case[] = [
  { name: "a usage error", args: ["status", "--bogus"], exits: [2] },
  {
    name: "status on a malformed ledger",
    args: ["status"],
    setup: (r) => void writeTree(r, { ".unlazy/api/gates/leaf-1.md": "OWNS: src/1/**\n- [ ] G1: t\n  CHECK: x\n" }),
    exits: [2],
  },
  { name: "check on a missing ledger", args: ["check", "missing.md"], exits: [2] },
  { name: "next with --slots 0", args: ["next", "--slots", "0"], exits: [2] },
  {
    name: "next on a broken dispatch.json",
    args: ["next"],
    setup: (r) => void writeTree(r, { ".unlazy/api/dispatch.json": "{" }),
    exits: [2],
  },
  { name: "lint without ledgers", args: ["lint"], setup: () => tempDir(), exits: [2] },
  {
    name: "lint on a malformed ledger",
    args: ["lint", "bad.md"],
    setup: (r) => void writeTree(r, { "bad.md": "- [ ] G1: t\n  CHECK: x\n" }),
    exits: [2],
  },
  { name: "scope claim of an unknown leaf", args: ["scope", "claim", "--leaf", "leaf-9"], exits: [2] },
  { name: "wave seal of an unknown wave", args: ["wave", "seal", "--wave", "w9"], exits: [2] },
  {
    name: "wave start refused by the state machine",
    args: ["wave", "seal", "--wave", "w1"],
    setup: (r) =>
      void writeTree(r, {
        ".unlazy/api/dispatch.json": JSON.stringify({
          schema: 1,
          waves: {
            w1: { leaves: ["leaf-1"], state: "open", openedAt: "2026-01-01T00:00:00.000Z", started: {}, returned: {} },
          },
        }),
      }),
    exits: [2],
  },
  { name: "structure without a request", args: ["structure", "apply"], exits: [2] },
  { name: "plan set of an unknown leaf", args: ["plan", "set", "9", "READY"], exits: [2] },
  { name: "advance of an unknown leaf", args: ["advance", "--leaf", "leaf-9"], exits: [2] },
  {
    name: "sign of an unknown gate",
    args: ["sign", ".unlazy/api/gates/leaf-1.md", "G9", "--evidence", "x y z"],
    exits: [2],
  },
  { name: "approvals explain without a gate", args: ["approvals", "explain", "GATES.md"], exits: [2] },
  { name: "approvals with arguments", args: ["approvals", "list", "x"], exits: [2] },
  { name: "verify without an action", args: ["verify"], exits: [2] },
  { name: "verify explain without a ledger", args: ["verify", "explain"], exits: [2] },
  {
    name: "init over an existing ledger",
    args: ["init"],
    setup: (r) => void writeTree(r, { "GATES.md": LEDGER }),
    exits: [2],
  },
  {
    name: "skill install for an unknown agent",
    args: ["skill", "install", "--agent", "vim"],
    setup: () => tempDir(),
    exits: [2],
  },
  {
    name: "hook install into unreadable settings",
    args: ["hook", "install"],
    setup: () => {
      const d = tempDir();
      writeTree(d, { ".claude/settings.local.json": "{not json" });
      return d;
    },
    exits: [2],
  },
];

async function walk(c: Case): Promise<void> {
  const base = fixtureCopy("next-golden");
  const cwd = c.setup?.(base) ?? base;
  const env = { ...agentEnv(), HOME: path.join(tempDir(), "home") };
  fs.mkdirSync(env.HOME, { recursive: true });
  const r = await runCli([...c.args, "--json"], { cwd, env });
  expect(c.exits).toContain(r.code);
  expectEnvelope(r.stdout, r.code);
}

describe("every verb's --json is the one envelope", () => {
  for (const c of ok) test(`${c.name}: one envelope line, exit matches, no errors`, () => walk(c));
  for (const c of failing)
    test(`${c.name}: one envelope line, exit 2, verdict invalid, errors with hints`, () => walk(c));
});
