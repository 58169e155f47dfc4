// The agent flow of issue 20, driven only through kbz verbs: a fresh repository, a scope of five
// leaves with needs and owns, one launch, then one advance --launch per returned leaf, a regroup and a
// split by name (kbz structure regroup|split, no request file), a receipt, the root
// verification, ALL MET and the Stop hook allowing. The driver writes the project's files (the
// work, the leaves' test scripts) and never a byte of PLAN.md,
// ACCESS.json, dispatch.json, leases or a ledger checkbox. Used by the e2e test and the bench.
import { flowRepo, type FlowRepo } from "./flow.ts";
import { stopHook } from "./hook.ts";

export interface FlowStep {
  args: string[];
  code: number;
  stdout: string;
  stderr: string;
}

export interface FlowResult {
  repo: FlowRepo;
  steps: FlowStep[];
  /** Exit code and output of the Stop hook at the end. */
  hook: { code: number; stdout: string };
  /** kbz invocations (the Stop hook and the person's approve and sign included). */
  invocations: number;
  /** Bytes the agent reads: the output of its own invocations and the Stop hook's answer. */
  bytes: number;
  /** Bytes of the person's acts (approve, sign): their review screens, read in their terminal. */
  personBytes: number;
}

/** Verbs the person runs in their own terminal; their output is not the agent's to read. */
export const PERSON_VERBS = new Set(["approve", "sign"]);

const SCOPE = "S";
const marker = (id: string) => `LEAF_${id.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}_OK`;

/** The agent's work for a leaf: its deliverable (the test was written before, with the gates). */
function work(r: FlowRepo, id: string, dir: string): void {
  r.write(`${dir}/done.txt`, `leaf ${id} delivered\n`);
}

/** A test script written before the work: it fails until the deliverable exists. */
function testFirst(r: FlowRepo, id: string, dir: string, testDir: string): void {
  r.write(
    `${testDir}/check.mjs`,
    `import { existsSync } from "node:fs";\nif (!existsSync(${JSON.stringify(`${dir}/done.txt`)})) { console.log("missing ${dir}/done.txt"); process.exit(1); }\nconsole.log(${JSON.stringify(marker(id))});\n`,
  );
}

export function runAgentFlow(): FlowResult {
  const r = flowRepo("kbz-agent-flow-");
  const steps: FlowStep[] = [];
  const kbz = (args: string[], input?: string): FlowStep => {
    const x = r.run(args, input === undefined ? {} : { input });
    const step = { args, code: x.code, stdout: x.stdout, stderr: x.stderr };
    steps.push(step);
    if (x.code === 2) throw new Error(`kbz ${args.join(" ")} exited 2:\n${x.stdout}${x.stderr}`);
    return step;
  };
  const s = ["--scope", SCOPE];
  r.write("package.json", JSON.stringify({ name: "flow-demo", type: "module" }) + "\n");

  kbz(["init", ...s]);
  const leaves: [string, string[]][] = [
    ["1", []],
    ["2", []],
    ["3", ["1"]],
    ["4", ["1", "2"]],
    ["5", ["3", "4"]],
  ];
  for (const [id, needs] of leaves) {
    kbz([
      "plan",
      "add",
      id,
      "--owns",
      `src/${id}/**,test/leaf-${id}/**`,
      ...(needs.length ? ["--needs", needs.join(",")] : []),
    ]);
    testFirst(r, id, `src/${id}`, `test/leaf-${id}`);
  }
  // Leaves 3 and 4 build on leaf 1's code: their gates name it as INPUTS, so a later change there
  // makes them stale together (a cascade).
  for (const id of ["3", "4"]) {
    const ledger = `.unlazy/S/gates/leaf-${id}.md`;
    r.write(
      ledger,
      r.read(ledger).replace(`  EXPECT: LEAF_${id}_OK\n`, `  EXPECT: LEAF_${id}_OK\n  INPUTS: src/1/**\n`),
    );
  }
  // Leaf 3 continues leaf 1's work: one group by name, run one after the other.
  kbz(["structure", "regroup", ...s, "1", "3"]);
  // The person reviews every CHECK of the scope once, before anything runs ("y": all of them).
  const approve = () => kbz(["approve", ...s], "y\n");
  approve();

  // One first launch, then one call per returned leaf: advance --launch verifies it and starts what
  // may run now (the skill's leaf loop).
  const launch = (slots?: string) => kbz(["next", ...s, "--launch", ...(slots ? ["--slots", slots] : [])]);
  const advance = (id: string) => kbz(["advance", ...s, "--leaf", id, "--launch"]);
  const returned = (id: string, dir: string) => {
    work(r, id, dir);
    return advance(id);
  };

  launch("2");
  returned("1", "src/1");
  returned("2", "src/2");

  // Leaf 5 turns out to hold two independent parts: split it by name before it starts, and write
  // the children's tests (their ledgers name test/leaf-5.1/check.mjs, as kbz plan add's do).
  kbz(["structure", "split", ...s, "5", "--into", "src/5/a/**", "src/5/b/**"]);
  testFirst(r, "5.1", "src/5/a", "test/leaf-5.1");
  testFirst(r, "5.2", "src/5/b", "test/leaf-5.2");
  approve();

  // Leaf 3's worker comes back without its deliverable: advance fails it, and it is sent back.
  advance("3");
  returned("3", "src/3");
  returned("4", "src/4");
  returned("5.1", "src/5/a");
  returned("5.2", "src/5/b");
  returned("5", "src/5");

  // A receipt for leaf 1 (inputs default to its OWNS and ACCESS reads).
  kbz(["verify", "run", "--closed", ".unlazy/S/gates/leaf-1.md"]);
  // A late fix in leaf 1's code: the gates of 3 and 4 (INPUTS) and leaf 1's receipt go stale at
  // once, and one call re-runs all of them.
  r.write("src/1/fix.txt", "a late fix\n");
  kbz(["check", ...s, "--stale"]);
  // The user reviewed the final report against the inventory and signs the manual root gate.
  kbz(["sign", ".unlazy/S/GATES.md", "N2", "--evidence", "final report reconciled with the inventory by the user"]);
  kbz(["check", ...s, "--reverify"]);
  kbz(["scope", "release", ...s]);

  const hook = stopHook({ cwd: r.dir, session_id: "flow", hook_event_name: "Stop" }, { env: r.env });
  const sum = (xs: typeof r.log) => xs.reduce((n, x) => n + x.bytes, 0);
  const personBytes = sum(r.log.filter((x) => PERSON_VERBS.has(x.args[0]!)));
  const bytes =
    sum(r.log.filter((x) => !PERSON_VERBS.has(x.args[0]!))) +
    Buffer.byteLength(hook.stdout) +
    Buffer.byteLength(hook.stderr);
  return {
    repo: r,
    steps,
    hook: { code: hook.code, stdout: hook.stdout },
    invocations: r.log.length + 1,
    bytes,
    personBytes,
  };
}
