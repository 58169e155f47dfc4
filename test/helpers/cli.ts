// The CLI run in-process, so `bun test --coverage` sees src/cli and src/hook. The working
// directory, the environment and the output descriptors are process-wide, so runs are
// serialized and every one restores them, also when it throws. Tests that need a real process
// (signals, crashes, concurrency, the compiled layout) use `kbz()` from ./kbz.ts instead.
import { runCli as cliMain } from "../../src/cli/index.ts";
import { flushOut, setOutputSink } from "../../src/cli/output.ts";
import { runStopHook } from "../../src/hook/entry.ts";

export interface CliResult {
  /** The exit code (not enumerable, so a result equals `{code, stdout, stderr}` in assertions). */
  exit?: number;
  /** The same as `exit`, under the name the binary helper uses. */
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Accepted for the binary helper's signature; an in-process run has no process to time out. */
  timeoutMs?: number;
}

let queue: Promise<unknown> = Promise.resolve();

function swapEnv(next: Record<string, string>): () => void {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (!(k in next)) delete process.env[k];
  Object.assign(process.env, next);
  return () => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  };
}

async function runOnce(argv: string[], opts: CliOptions): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
  // As the binary helper: a scope set in the test runner's own environment never leaks in.
  delete env.UNLAZY_SCOPE;
  if (opts.env?.UNLAZY_SCOPE) env.UNLAZY_SCOPE = opts.env.UNLAZY_SCOPE;
  const cwd = opts.cwd ?? process.cwd();
  let stdout = "";
  let stderr = "";
  const savedCwd = process.cwd();
  const restoreEnv = swapEnv(env);
  process.chdir(cwd);
  setOutputSink({ stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  try {
    let exit: number;
    if (argv[0] === "hook" && argv[1] === "stop" && !argv.includes("--help") && !argv.includes("-h")) {
      // main.ts answers the Stop hook before yargs and exits the process; here it returns.
      const r = await runStopHook(
        argv.slice(2),
        { bytes: Buffer.from(opts.stdin ?? ""), timedOut: false },
        process.env,
        cwd,
      );
      stdout += r.stdout;
      stderr += r.stderr;
      exit = r.code ?? 0;
    } else {
      exit = await cliMain(argv);
    }
    flushOut();
    // `exit` is not enumerable, so a result still equals the binary helper's {code, stdout, stderr}.
    const result = { code: exit, stdout, stderr } as CliResult;
    Object.defineProperty(result, "exit", { value: exit, enumerable: false });
    return result;
  } finally {
    setOutputSink(null);
    process.chdir(savedCwd);
    restoreEnv();
  }
}

/** Run `kbz <argv>` in this process: {exit, stdout, stderr}, as the binary would print them. */
export function runCli(argv: string[], opts: CliOptions = {}): Promise<CliResult> {
  const run = queue.then(() => runOnce(argv, opts));
  queue = run.catch(() => {});
  return run;
}
