// The doc test (issue 20): every `kbz …` command line in skill/SKILL.md and skill/references/*.md
// runs against a fixture scope and none exits 2. Fenced lines starting with `kbz ` and inline code
// spans with at least one argument are command lines; a span that only names a verb (`kbz advance`)
// is a name. Placeholders are replaced by the fixture's values, `[optional]` groups dropped, `a|b`
// takes the first alternative (except the handoff actions `accept|resume`: each runs). Inline spans
// are read per paragraph, so a span that wraps a line is still a command. Each command runs in a
// fresh copy of the fixture after the setup its verb needs (a wave to seal, a claim to release, a
// worker's report to accept), done through kbz verbs as well; a setup step that fails fails the
// line. Coordinator lines run against a real one-member etcd on loopback started for this file.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, tempDir } from "../../helpers/kbz.ts";
import { flowRepo, type FlowRepo } from "../../helpers/flow.ts";
import { runCli } from "../../helpers/cli.ts";
import type { RunResult } from "../../helpers/kbz.ts";
import { startCluster, type Cluster } from "../../helpers/etcd-cluster.ts";
import { needs } from "../../helpers/needs.ts";

setDefaultTimeout(600_000);
const SKILL = path.join(REPO, "skill");
const DOCS = [
  "SKILL.md",
  ...fs
    .readdirSync(path.join(SKILL, "references"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `references/${f}`),
];

/** Lines that talk to a coordinator: they run against a real one-member etcd on loopback. */
const COORDINATED = /^kbz coordinator\b|--coordinator\b/;

/**
 * `kbz advance`, `kbz scope claim`: a verb (and action) that may be named in prose rather than run.
 * Such a span still runs: it passes only when it succeeds (`kbz status`, `kbz approvals list`) or
 * when kbz refuses it as a usage error (a verb that needs its arguments, named in a sentence).
 */
function isName(span: string): boolean {
  const w = span.split(/\s+/).slice(1);
  // `kbz coordinator status` takes no arguments: it runs as written.
  if (w[0] === "coordinator") return false;
  return w.length <= 2 && w.every((x) => /^[a-z]+$/.test(x));
}

export function commandLines(): { doc: string; line: string; name?: boolean }[] {
  const out: { doc: string; line: string; name?: boolean }[] = [];
  for (const doc of DOCS) {
    let fence = false;
    // An inline code span may wrap onto the next line of its paragraph: spans are read per paragraph.
    let para: string[] = [];
    const flush = () => {
      for (const m of para.join(" ").matchAll(/`(kbz [^`]+)`/g)) {
        const span = m[1]!.trim().replace(/\s+/g, " ");
        out.push(isName(span) ? { doc, line: span, name: true } : { doc, line: span });
      }
      para = [];
    };
    for (const raw of fs.readFileSync(path.join(SKILL, doc), "utf8").split("\n")) {
      if (/^\s*(```|~~~)/.test(raw)) {
        flush();
        fence = !fence;
        continue;
      }
      if (fence) {
        const t = raw.trim();
        if (t.startsWith("kbz ")) out.push({ doc, line: t.replace(/\s+#\s.*$/, "") });
        continue;
      }
      if (raw.trim() === "") flush();
      else para.push(raw);
    }
    flush();
  }
  return out;
}

const PLACEHOLDERS: [RegExp, string][] = [
  // A span that elides the selectors (`kbz wave start … --handle H`): the fixture's wave and leaf.
  [/^kbz wave start … /, "kbz wave start --scope S --wave w1 --leaf leaf-1.1 "],
  [/--handle H\b/g, "--handle agent-1"],
  [/--agent NAME\b/g, "--agent claude"],
  [/\[[^\]]*\]/g, ""],
  [/([^\s|]+)(\|[^\s|]+)+/g, "$1"],
  [/<session-id>/g, "session-1"],
  [/leaf-<id>|leaf-a\b/g, "leaf-1.1"],
  [/<ledger>|\bLEDGER(\.\.\.)?/g, ".unlazy/S/gates/leaf-1.1.md"],
  [/<id>/g, "agent-1"],
  [/--handle ID\b/g, "--handle agent-1"],
  [/--slots N\b/g, "--slots 2"],
  [/--wave W\b/g, "--wave w1"],
  [/\bLEAF STATE\b/g, "1.1 READY"],
  [/\bLEAF\b/g, "1.1"],
  [/\bGATE\b/g, "G1"],
  [/"\.\.\."/g, '"reason"'],
  // The handoff verbs: `reject …` repeats accept's selectors; the report is r1 of report-1.
  [/^kbz structure reject …/, "kbz structure reject --scope S --operation OP --report ID"],
  [/\bOP\b/g, "op-doc"],
  [/\bFILE\b/g, "proposal.json"],
  [/--report ID\b/g, "--report r1"],
  [/\bTEXT\b/g, "text"],
];

function concrete(line: string): string {
  // A person signs a manual gate: the root ledger's G4.
  let s = line.startsWith("kbz sign ") ? line.replace(/\bLEDGER\b/, "GATES.md").replace(/\bGATE\b/, "G4") : line;
  for (const [re, to] of PLACEHOLDERS) s = s.replace(re, to);
  return s.replace(/\s+/g, " ").trim();
}

/** Shell-like words: single and double quotes group. */
function words(cmd: string): string[] {
  return [...cmd.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

const PASSING = "- [ ] G1: prints\n  CHECK: printf LEAF_OK\n  EXPECT: LEAF_OK\n  EVIDENCE: pending\n";

/** A worker's report on leaf 1.1 (the wave w1 attempt of agent-1): split it into 1.1.1 and 1.1.2. */
const child = (id: string, owns: string) => ({
  id,
  needs: [],
  tier: "mechanical",
  ledger: `# Gates: leaf ${id}\nOWNS: ${owns}\n\n${PASSING}`,
  access: { complete: true, reads: [], resourceReads: [], resourceWrites: [] },
});
const PROPOSAL = {
  id: "r1",
  parent: "1.1",
  source: { wave: "w1", handle: "agent-1" },
  checkpoint: { summary: "parts found", completed: [], remaining: ["G1"], artifacts: [] },
  refinement: { retainsParentGates: true, children: [child("1.1.1", "src/a/x/**"), child("1.1.2", "src/a/y/**")] },
};

/** The fixture: scope S with leaves 1.1 (src/a) and 1.2 (src/import), leaf 2 (src/b) after them, a root GATES.md. */
/** Runs a kbz line: in this process (the lines are about the verbs, not the binary), or the binary. */
type Run = (args: string[]) => Promise<RunResult>;

async function fixture(r: FlowRepo, run: Run, withLeaves: boolean): Promise<void> {
  r.write("package.json", "{}\n");
  r.write(
    "GATES.md",
    "# Gates: solo\n\n- [ ] G1: prints\n  CHECK: printf SOLO_OK\n  EXPECT: SOLO_OK\n  EVIDENCE: pending\n\n- [ ] G4: copy reviewed\n  EVIDENCE: pending\n",
  );
  await run(["init", "--scope", "S"]);
  if (!withLeaves) return;
  for (const [id, owns, needs] of [
    ["1.1", "src/a/**", ""],
    ["1.2", "src/import/**", ""],
    ["2", "src/b/**", "1.1"],
  ] as const) {
    await run(["plan", "add", "--scope", "S", id, "--owns", owns, ...(needs ? ["--needs", needs] : [])]);
    r.write(`.unlazy/S/gates/leaf-${id}.md`, `# Gates: leaf ${id}\nOWNS: ${owns}\n\n${PASSING}`);
  }
  // The worked split request of references/structure.md, as the doc shows it.
  r.write("proposal.json", JSON.stringify(PROPOSAL));
  const doc = fs.readFileSync(path.join(SKILL, "references/structure.md"), "utf8");
  r.write(".unlazy/S/requests/split-2.json", /```json\n([\s\S]*?)```/.exec(doc)![1]!);
}

/** kbz steps that bring the fixture into the state a command needs. */
function setup(args: string[]): string[][] {
  const [verb, action] = args;
  const s = ["--scope", "S"];
  const open = ["wave", "open", ...s, "--wave", "w1", "--leaf", "leaf-1.1"];
  const start = ["wave", "start", ...s, "--wave", "w1", "--leaf", "leaf-1.1", "--handle", "agent-1"];
  const claim = ["scope", "claim", ...s, "--leaf", "leaf-1.1"];
  if (verb === "wave" && action === "start") return [open];
  if (verb === "wave" && (action === "seal" || action === "abandon")) return action === "seal" ? [open, start] : [open];
  if (verb === "wave" && action === "return") return [open, start, ["wave", "seal", ...s, "--wave", "w1"]];
  if (verb === "advance") return [claim, open, start, ["wave", "seal", ...s, "--wave", "w1"]];
  if (verb === "scope" && action === "release") return [claim];
  if (verb === "plan" && action === "set") return [["plan", "set", ...s, "1.1", "IN-FLIGHT"]];
  const sealed = [claim, open, start, ["wave", "seal", ...s, "--wave", "w1"]];
  if (verb === "structure" && action === "report") return sealed;
  const reported = [
    ...sealed,
    ["structure", "report", ...s, "--operation", "report-1", "--proposal", "proposal.json"],
    ["wave", "return", ...s, "--wave", "w1", "--leaf", "leaf-1.1"],
    ["scope", "release", ...s, "--leaf", "leaf-1.1"],
  ];
  if (verb === "structure" && (action === "accept" || action === "resume" || action === "reject")) return reported;
  if (verb === "structure" && (action === "check" || action === "recover"))
    return [["structure", "apply", ...s, "--request", ".unlazy/S/requests/split-2.json"]];
  return [];
}

/** Which fixture a command starts from: empty folder, bare scope, or the scope with leaves. */
function start(args: string[]): "empty" | "bare" | "full" {
  if (args[0] === "init") return "empty";
  if (args[0] === "plan" && args[1] === "add") return "bare";
  return "full";
}

const made: FlowRepo[] = [];
let cluster: Cluster | null = null;
// Coordinator lines need etcd: without it they skip (one line names the package), never wait.
const withEtcd = commandLines().some((l) => COORDINATED.test(concrete(l.line))) && needs("etcd");
beforeAll(async () => {
  if (withEtcd) cluster = await startCluster(1);
});
afterAll(async () => {
  made.forEach((r) => r.cleanup());
  await cluster?.stop();
});

describe("the doc test: every kbz command line in the skill runs, none exits 2", () => {
  const lines = commandLines();
  test("the skill has command lines for every verb an agent uses", () => {
    const verbs = new Set(lines.map((l) => l.line.split(/\s+/)[1]));
    for (const v of [
      "init",
      "plan",
      "next",
      "scope",
      "wave",
      "advance",
      "check",
      "sign",
      "verify",
      "structure",
      "approvals",
      "lint",
      "status",
      "hook",
    ])
      expect([v, verbs.has(v)]).toEqual([v, true]);
  });

  const seen = new Set<string>();
  // `kbz structure accept|resume …`: each alternative handoff action is a command of its own.
  const expanded = lines.flatMap(({ doc, line, name }) => {
    const m = /^(kbz structure )([a-z]+(?:\|[a-z]+)+)( .*)?$/.exec(line);
    return m ? m[2]!.split("|").map((a) => ({ doc, line: `${m[1]}${a}${m[3] ?? ""}`, name })) : [{ doc, line, name }];
  });
  for (const { doc, line, name } of expanded) {
    const cmd = concrete(line);
    if (seen.has(cmd)) continue;
    seen.add(cmd);
    const coordinated = COORDINATED.test(cmd);
    // The sandbox and the probe run under bubblewrap: without it those lines skip (one line names the package).
    const sandboxed = /--(sandbox|probe)\b/.test(cmd);
    test.skipIf((coordinated && !withEtcd) || (sandboxed && !needs("bwrap")))(
      `${doc}: ${line}${coordinated ? " (against a loopback etcd)" : ""}`,
      async () => {
        const r = flowRepo("kbz-doc-");
        made.push(r);
        // Coordinator lines run the binary: a claim starts its lease keeper as `kbz coordinator keep`.
        const run: Run = coordinated
          ? async (a) => r.run(a)
          : async (a) => {
              const x = await runCli(a, { cwd: r.dir, env: r.env });
              return { code: x.code, stdout: x.stdout, stderr: x.stderr };
            };
        r.env.HOME = tempDir("kbz-doc-home-");
        const args = words(cmd).slice(1);
        const from = start(args);
        if (from !== "empty") await fixture(r, run, from === "full");
        // The coordinator as .kbz/settings.json names it; a clone without git history names its namespace too.
        if (coordinated)
          r.write(
            ".kbz/settings.json",
            JSON.stringify({ coordinator: { url: cluster!.url, repository: `kbz-doc-${made.length}` } }) + "\n",
          );
        if (args[0] === "plan" && args[1] === "add") {
          const needs = args[args.indexOf("--needs") + 1];
          if (args.includes("--needs"))
            for (const n of needs!.split(","))
              await run(["plan", "add", "--scope", "S", n, "--owns", `src/need-${n}/**`]);
        }
        for (const step of setup(args)) {
          const y = await run(step);
          // A setup step that fails means the line did not run in the state it needs: fail, never skip.
          expect([step.join(" "), y.code === 0 ? "ok" : `exit ${y.code}: ${y.stdout}${y.stderr}`]).toEqual([
            step.join(" "),
            "ok",
          ]);
        }
        // `--approve=<sig>`: the signature kbz check printed for the first pending oracle.
        const sigAt = args.findIndex((a) => /^--approve=(<sig>|SIG)$/.test(a));
        if (sigAt >= 0)
          args[sigAt] = `--approve=${/\[([0-9a-f]{12})\]/.exec((await run(["check"])).stdout)?.[1] ?? "none-pending"}`;
        const x = await run(args);
        fs.rmSync(r.env.HOME!, { recursive: true, force: true });
        // A verb named in prose may be refused for its missing arguments, and only that way.
        if (name && x.code === 2 && /run kbz ([a-z]+ )*--help for /.test(x.stderr)) return;
        expect([cmd, x.code === 2 ? `exit 2: ${x.stdout}${x.stderr}` : "ok"]).toEqual([cmd, "ok"]);
      },
    );
  }
});
