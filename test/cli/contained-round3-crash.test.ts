// Issue 42 item 4 and the crash acceptance: each of five verbs (next --launch, check --approve,
// sign, advance, structure split) is killed by SIGKILL at every rename, link, unlink and fsync it
// makes (strace's fault injection, one run per point: `-e inject=<syscall>:signal=KILL:when=N`),
// then the same verb runs once more, and the test finds no litter (temp files, staged lock owner
// records, moved-aside or dead owners' locks, probe views, option files) in the repository, the
// approval store or the temp folder, and a consistent plan (status and next read it without an
// error; every leaf a sealed wave started is IN-FLIGHT or later in PLAN.md). The number of points
// is printed. Temp files of atomic writes are swept only once they are older than a live writer's
// ever is (docs/formats.md#writes): the test ages what the killed run left by a minute first.
// Fails on 571b8e3 (KBZ_TEST_BIN=/work/tools/kbz-571b8e3): litter left, a half-launched wave.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentApprovalDir, checkEnv } from "../helpers/approvals.ts";
import { leafGates } from "../helpers/flow.ts";
import { needs } from "../helpers/needs.ts";

setDefaultTimeout(1_800_000);

const ready = needs("strace");
const SYSCALLS = ["rename", "renameat", "renameat2", "link", "linkat", "unlink", "unlinkat", "fsync", "fdatasync"];
const LITTER = /(\.tmp|\.new|\.stale|\.filelock|\.lock)$|^kbz-(view|args)-/;

interface Case {
  verb: string;
  /** Build the repository (in `dir`, with `env`); return the verb's argv. */
  setup(dir: string, env: Record<string, string>): string[];
  /** The verb run once more (default: the same argv): one that takes what the killed run took. */
  again?: string[];
  /** Extra consistency checks after the re-run. */
  consistent?(dir: string, env: Record<string, string>): void;
}

const ok = (dir: string, env: Record<string, string>, args: string[]) => {
  const r = kbz(args, { cwd: dir, env, timeoutMs: 60_000 });
  expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 0, r.stderr]);
};

function planned(dir: string, env: Record<string, string>, leaves: string[]): void {
  ok(dir, env, ["init", "--scope", "S"]);
  for (const id of leaves) {
    ok(dir, env, ["plan", "add", "--scope", "S", id, "--owns", `src/${id}/**`]);
    writeTree(dir, { [`.unlazy/S/gates/leaf-${id}.md`]: leafGates(id, `src/${id}/**`, `src/${id}/done.txt`) });
  }
}

/** PLAN.md rows (id → state) and dispatch.json's sealed waves' started leaves. */
function planRows(dir: string): Map<string, string> {
  const text = fs.readFileSync(path.join(dir, ".unlazy/S/PLAN.md"), "utf8");
  const rows = new Map<string, string>();
  for (const l of text.split("\n")) {
    const c = l.split("|").map((x) => x.trim());
    if (/^[0-9.]+$/.test(c[1] ?? "")) rows.set(c[1]!, c[6]!);
  }
  return rows;
}

function launchedConsistent(dir: string): void {
  const file = path.join(dir, ".unlazy/S/dispatch.json");
  if (!fs.existsSync(file)) return;
  const d = JSON.parse(fs.readFileSync(file, "utf8"));
  const rows = planRows(dir);
  for (const [id, w] of Object.entries<{ state: string; started?: Record<string, unknown>; leaves: string[] }>(
    d.waves ?? {},
  )) {
    if (w.state !== "sealed") continue;
    for (const leaf of Object.keys(w.started ?? {})) {
      const row = leaf.replace(/^leaf-/, "");
      expect(`${id} ${row} ${rows.get(row)}`).not.toBe(`${id} ${row} READY`);
    }
  }
}

const CASES: Case[] = [
  {
    verb: "next --launch",
    setup: (dir, env) => {
      planned(dir, env, ["1", "2"]);
      return ["next", "--scope", "S", "--launch"];
    },
    consistent: launchedConsistent,
  },
  {
    verb: "check --approve",
    setup: (dir) => {
      writeTree(dir, {
        "GATES.md":
          "# Gates: crash\n\n- [ ] G1: one\n  CHECK: echo ok\n  EXPECT: ok\n  INPUTS: a.txt\n  EVIDENCE: pending\n\n- [ ] G2: two\n  CHECK: echo ok\n  EXPECT: ok\n  EVIDENCE: pending\n",
        "a.txt": "a\n",
      });
      return ["check", "--approve"];
    },
    // Every gate again: its writes take the ledger's, the records' and the attestation's locks.
    again: ["check", "--approve", "--reverify"],
  },
  {
    verb: "sign",
    setup: (dir) => {
      writeTree(dir, {
        "GATES.md": "# Gates: crash\n\n- [ ] M1: read by a person\n  INPUTS: a.txt\n  EVIDENCE: pending\n",
        "a.txt": "a\n",
      });
      return ["sign", "GATES.md", "M1", "--evidence", "read it through"];
    },
  },
  {
    verb: "advance",
    setup: (dir, env) => {
      planned(dir, env, ["1"]);
      ok(dir, env, ["next", "--scope", "S", "--launch"]);
      writeTree(dir, { "src/1/done.txt": "done\n" });
      return ["advance", "--scope", "S", "--leaf", "1", "--approve"];
    },
    consistent: launchedConsistent,
  },
  {
    verb: "structure split",
    setup: (dir, env) => {
      ok(dir, env, ["init", "--scope", "S"]);
      ok(dir, env, ["plan", "add", "--scope", "S", "1", "--owns", "src/1/**"]);
      writeTree(dir, { ".unlazy/S/gates/leaf-1.md": leafGates("1", "src/1/**", "src/1/done.txt") });
      ok(dir, env, [
        "plan",
        "add",
        "--scope",
        "S",
        "5",
        "--owns",
        "src/5/**,test/leaf-5/**",
        "--needs",
        "1",
        "--tier",
        "mechanical",
      ]);
      return ["structure", "split", "--scope", "S", "5", "--into", "src/5/a/**,test/leaf-5/a/**", "src/5/b/**"];
    },
    // A killed structure change is finished by recover (a split refuses until then: "recover first").
    again: ["structure", "recover", "--scope", "S"],
  },
];

/** Files under `dirs` that are litter. */
function litter(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[] = [];
    try {
      names = fs.readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = path.join(d, n);
      if (LITTER.test(n)) out.push(p);
      if (fs.lstatSync(p).isDirectory()) walk(p);
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

/** Age every file under `dirs` by a minute (a later run, as far as the sweep's age guard goes). */
function age(dirs: string[]): void {
  const then = new Date(Date.now() - 60_000);
  const walk = (d: string) => {
    for (const n of fs.readdirSync(d)) {
      const p = path.join(d, n);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) fs.utimesSync(p, then, then);
    }
  };
  for (const d of dirs) if (fs.existsSync(d)) walk(d);
}

interface World {
  dir: string;
  env: Record<string, string>;
  argv: string[];
  dirs: string[];
}

/** A fresh repository and private store (agent policy) with the verb's setup done. */
function world(c: Case): World {
  const dir = tempDir("kbz-crash-");
  const store = agentApprovalDir();
  const tmp = tempDir("kbz-crash-tmp-");
  const env: Record<string, string> = { ...checkEnv(store), TMPDIR: tmp };
  fs.mkdirSync(env.HOME!, { recursive: true });
  const argv = c.setup(dir, env);
  return { dir, env, argv, dirs: [dir, path.dirname(store), tmp] };
}

describe.skipIf(!ready)("issue 42 item 4: SIGKILL at every rename, link, unlink and fsync of five verbs", () => {
  const counts: Record<string, number> = {};
  for (const c of CASES) {
    test(`item 4: ${c.verb}: killed at each point, then run once more: no litter, a consistent plan`, () => {
      // The points: each syscall of interest the verb makes, by name, in kbz's own process.
      const t = world(c);
      const trace = path.join(path.dirname(t.dir), `${path.basename(t.dir)}.trace`);
      const probe = t;
      spawnSync("strace", ["-f", "-qq", "-e", `trace=${SYSCALLS.join(",")}`, "-o", trace, BIN, ...t.argv], {
        cwd: probe.dir,
        env: { ...process.env, ...probe.env },
      });
      const lines = fs.readFileSync(trace, "utf8").split("\n").filter(Boolean);
      fs.rmSync(trace);
      // kbz's own process: the one that made most of these calls (children: the CHECKs, git).
      const calls = lines
        .map((l) => /^(\d+)\s+(\w+)\(/.exec(l))
        .filter((m) => m && SYSCALLS.includes(m[2]!)) as RegExpExecArray[];
      const byPid = new Map<string, number>();
      for (const m of calls) byPid.set(m[1]!, (byPid.get(m[1]!) ?? 0) + 1);
      const main = [...byPid].sort((a, b) => b[1] - a[1])[0]?.[0];
      const per = new Map<string, number>();
      for (const m of calls) if (m[1] === main) per.set(m[2]!, (per.get(m[2]!) ?? 0) + 1);
      let points = 0;
      const failures: string[] = [];
      for (const [sys, n] of per) {
        for (let when = 1; when <= n; when++) {
          points++;
          const w = world(c);
          spawnSync(
            "strace",
            [
              "-f",
              "-qq",
              "-o",
              "/dev/null",
              "-e",
              `trace=${sys}`,
              "-e",
              `inject=${sys}:signal=KILL:when=${when}`,
              BIN,
              ...t.argv,
            ],
            {
              cwd: w.dir,
              env: { ...process.env, ...w.env },
            },
          );
          age(w.dirs);
          const again = kbz(c.again ?? t.argv, { cwd: w.dir, env: w.env, timeoutMs: 60_000 });
          const left = litter(w.dirs).map((p) => path.relative(path.dirname(w.dir), p));
          const status = kbz(["status"], { cwd: w.dir, env: w.env });
          const where = `${c.verb} killed at ${sys} #${when}`;
          if (left.length > 0) failures.push(`${where}: litter ${left.join(", ")}`);
          if (again.code === 2 || status.code === 2)
            failures.push(`${where}: ${again.stderr.trim() || status.stderr.trim()}`);
          try {
            c.consistent?.(w.dir, w.env);
          } catch (e) {
            failures.push(`${where}: ${(e as Error).message.split("\n")[0]}`);
          }
        }
      }
      counts[c.verb] = points;
      console.log(`issue 42 crash points: ${c.verb}: ${points} (${[...per].map(([s, n]) => `${s} ${n}`).join(", ")})`);
      expect(points).toBeGreaterThan(0);
      for (const f of failures.slice(0, 12)) console.log(`  ${f}`);
      expect(failures.slice(0, 12)).toEqual([]);
    });
  }
});
