// The agent flow of issues 20, 30 and 43, driven only through kbz verbs: a fresh repository with a
// solo ledger (a runnable gate and a manual one) next to a scope of four leaves (needs, a leaf sent
// back), one launch, one advance --launch per returned leaf, the solo ledger's
// check, the vacuity probe, the root verification, the scope released, `kbz next` saying DONE and the
// Stop hook allowing. The person's acts (approvals, the probe's approval, two sign-offs) are counted
// apart: what the agent showed them is the PERSON line, and they run what it names. The driver
// writes the project's files (the work, the tests written before it, the gates' text) and never a
// byte of PLAN.md, ACCESS.json, dispatch.json, leases or a ledger checkbox. Used by the e2e test and
// the bench.
import { flowRepo, type FlowRepo } from "./flow.ts";
import { stopHook } from "./hook.ts";

export interface FlowStep {
  args: string[];
  code: number;
  stdout: string;
  stderr: string;
  person: boolean;
}

export interface FlowResult {
  repo: FlowRepo;
  steps: FlowStep[];
  /** Exit code and output of the Stop hook at the end. */
  hook: { code: number; stdout: string };
  /** The agent's kbz invocations, the Stop hook included. */
  invocations: number;
  /** Bytes the agent reads: the output of its own invocations and the Stop hook's answer. */
  bytes: number;
  /** The person's invocations (what the PERSON lines named) and the bytes of their screens. */
  personInvocations: number;
  personBytes: number;
}

/** Verbs the person runs in their own terminal; their output is not the agent's to read. */
export const PERSON_VERBS = new Set(["approve", "sign"]);

const SCOPE = "S";
const marker = (id: string) => `LEAF_${id.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}_OK`;

/** A test script written before the work: it fails until the deliverable exists. */
function testFirst(r: FlowRepo, id: string, dir: string): void {
  r.write(
    `test/leaf-${id}/check.mjs`,
    `import { existsSync } from "node:fs";\nif (!existsSync(${JSON.stringify(`${dir}/done.txt`)})) { console.log("missing ${dir}/done.txt"); process.exit(1); }\nconsole.log(${JSON.stringify(marker(id))});\n`,
  );
}

/** The solo task: a tool and its test, and a manual gate the person judges. */
const SOLO = `# Gates

- [ ] G1: the tool prints its version
  CHECK: node test/tool.test.mjs
  EXPECT: TOOL_OK
  INPUTS: src/tool.mjs
  EVIDENCE: pending
- [ ] G2: the person tried the tool's --help and it reads well
  EVIDENCE: pending
`;

/** The PERSON line's commands: what the agent shows its person, split into argument lists. */
function personCommands(text: string): string[][] {
  const line = /^PERSON: .*; in their terminal: (.*)$/m.exec(text)?.[1];
  if (!line) return [];
  return line
    .split("; ")
    .map((c) => [...c.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!).slice(1));
}

export function runAgentFlow(): FlowResult {
  const r = flowRepo("kbz-agent-flow-");
  const steps: FlowStep[] = [];
  const run = (args: string[], person: boolean, input?: string): FlowStep => {
    const x = r.run(args, input === undefined ? {} : { input });
    const step = { args, code: x.code, stdout: x.stdout, stderr: x.stderr, person };
    steps.push(step);
    if (x.code === 2) throw new Error(`kbz ${args.join(" ")} exited 2:\n${x.stdout}${x.stderr}`);
    return step;
  };
  const kbz = (args: string[]) => run(args, false);
  /** The person runs what the agent's last PERSON line named (evidence: what they checked). */
  const person = (from: FlowStep) => {
    for (const c of personCommands(from.stdout))
      run(
        c.map((w) => (w === "..." ? "checked by the person" : w)),
        true,
        "y\n",
      );
  };
  const s = ["--scope", SCOPE];
  r.write("package.json", `${JSON.stringify({ name: "flow-demo", type: "module" })}\n`);
  r.write("GATES.md", SOLO);
  // The tool's skeleton: a gate's INPUTS must match a file (an INPUTS entry matching nothing is unmet).
  r.write("src/tool.mjs", 'export const v = "0";\n');
  r.write(
    "test/tool.test.mjs",
    `import { v } from "../src/tool.mjs";\nif (v !== "1.0") process.exit(1);\nconsole.log("TOOL_OK");\n`,
  );

  kbz(["init", ...s]);
  const leaves: [string, string[]][] = [
    ["1", []],
    ["2", []],
    ["3", ["1"]],
    ["4", ["2", "3"]],
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
    testFirst(r, id, `src/${id}`);
  }
  // Nothing approved yet: each first check says what waits for the person, in one line.
  const first = [kbz(["check", ...s]), kbz(["check", "GATES.md"])];
  for (const x of first) person(x);

  const advance = (id: string) => kbz(["advance", ...s, "--leaf", id, "--launch"]);
  const work = (id: string) => r.write(`src/${id}/done.txt`, `leaf ${id} delivered\n`);
  kbz(["next", ...s, "--launch", "--slots", "2"]);
  work("1");
  advance("1");
  work("2");
  advance("2");
  // Leaf 3's worker comes back without its deliverable: advance fails it; it is sent back.
  advance("3");
  work("3");
  advance("3");
  work("4");
  const last = advance("4");
  // The solo task's work, its check, then the vacuity probe of what passed.
  r.write("src/tool.mjs", 'export const v = "1.0";\n');
  const solo = kbz(["check", "GATES.md"]);
  const probe = kbz(["check", "--probe", "GATES.md"]);
  // One person session at the end: the probe's approval and the two sign-offs the lines named.
  person(probe);
  person(solo);
  person(last);
  kbz(["check", ...s, "--reverify"]);
  kbz(["scope", "release", ...s]);
  kbz(["next", ...s]);

  const hook = stopHook({ cwd: r.dir, session_id: "flow", hook_event_name: "Stop" }, { env: r.env });
  const agent = steps.filter((x) => !x.person);
  const people = steps.filter((x) => x.person);
  const size = (x: FlowStep) => Buffer.byteLength(x.stdout) + Buffer.byteLength(x.stderr);
  const bytes =
    agent.reduce((n, x) => n + size(x), 0) + Buffer.byteLength(hook.stdout) + Buffer.byteLength(hook.stderr);
  return {
    repo: r,
    steps,
    hook: { code: hook.code, stdout: hook.stdout },
    invocations: agent.length + 1,
    bytes,
    personInvocations: people.length,
    personBytes: people.reduce((n, x) => n + size(x), 0),
  };
}
