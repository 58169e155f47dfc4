// A fresh repository driven only through kbz verbs, for the agent-flow tests and the bench.
import * as fs from "node:fs";
import * as path from "node:path";
import { agentEnv } from "./approvals.ts";
import { runCli } from "./cli.ts";
import { BIN, kbz, tempDir, type RunResult } from "./kbz.ts";

export interface FlowRepo {
  dir: string;
  env: Record<string, string>;
  /** Every invocation, for the agent-flow figures. */
  log: { args: string[]; code: number; bytes: number }[];
  run(args: string[], opts?: { cwd?: string; input?: string }): RunResult;
  write(rel: string, text: string): void;
  read(rel: string): string;
  cleanup(): void;
}

/** A temp repository with a private approval store and kbz itself on PATH (root gates call it). */
export function flowRepo(prefix = "kbz-flow-"): FlowRepo {
  const dir = tempDir(prefix);
  const env = agentEnv({});
  env.PATH = `${path.dirname(BIN)}:/usr/bin:/bin`;
  const log: FlowRepo["log"] = [];
  return {
    dir,
    env,
    log,
    run(args, opts = {}) {
      const r = kbz(args, { cwd: opts.cwd ?? dir, env, timeoutMs: 60_000, input: opts.input });
      log.push({ args, code: r.code, bytes: Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr) });
      return r;
    },
    write(rel, text) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    },
    read: (rel) => fs.readFileSync(path.join(dir, rel), "utf8"),
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(env.UNLAZY_APPROVAL_DIR!, { recursive: true, force: true });
    },
  };
}

export interface InProcessFlowRepo extends Omit<FlowRepo, "run"> {
  run(args: string[], opts?: { cwd?: string }): Promise<RunResult>;
}

/** The same repository, with every verb run in this process (runCli), so coverage sees src/cli.
 *  CHECKs still run as real processes, and kbz stays on PATH for root gates that call it. */
export function flowRepoInProcess(prefix = "kbz-flow-"): InProcessFlowRepo {
  const { run: _binary, ...repo } = flowRepo(prefix);
  return {
    ...repo,
    async run(args, opts = {}) {
      const r = await runCli(args, { cwd: opts.cwd ?? repo.dir, env: repo.env });
      repo.log.push({ args, code: r.code, bytes: Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr) });
      return { code: r.code, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

/** A leaf ledger's gate definitions as an agent writes them (boxes unticked: kbz ticks them). */
export function leafGates(id: string, owns: string, marker: string): string {
  return `# Gates: leaf ${id}\nOWNS: ${owns}\n\n- [ ] G1: the deliverable of ${id} is in place\n  CHECK: test -f ${marker} && printf LEAF_${id.replace(/\W/g, "_")}_OK\n  EXPECT: LEAF_${id.replace(/\W/g, "_")}_OK\n  EVIDENCE: pending\n`;
}
