// The agent flow of issue 20 (test/helpers/agent-flow.ts): a fresh repository driven through a
// five-leaf scope with a split, a receipt, the root verification and the Stop hook, only through
// kbz verbs. Prints how many kbz invocations it took and how many bytes of output an agent would
// read (stdout + stderr of every invocation). Targets: ≤ 50 invocations, ≤ 12 KB; the original
// Kill_bezzangyi scripts needed 98 commands and 17 KB for a comparable task.
//   bun bench/agent-flow.ts [--transcript]
import { runAgentFlow } from "../test/helpers/agent-flow.ts";

const flow = runAgentFlow();
try {
  if (process.argv.includes("--transcript")) {
    for (const s of flow.steps) process.stdout.write(`$ kbz ${s.args.join(" ")}\n${s.stdout}${s.stderr}`);
  }
  const perVerb = new Map<string, { n: number; bytes: number }>();
  for (const x of flow.repo.log) {
    const v = perVerb.get(x.args[0]!) ?? { n: 0, bytes: 0 };
    v.n++;
    v.bytes += x.bytes;
    perVerb.set(x.args[0]!, v);
  }
  for (const [verb, v] of [...perVerb].sort((a, b) => b[1].bytes - a[1].bytes)) console.log(`  ${verb.padEnd(10)} ${String(v.n).padStart(3)} calls ${String(v.bytes).padStart(6)} bytes`);
  console.log(`invocations: ${flow.invocations}`);
  console.log(`bytes: ${flow.bytes}`);
} finally {
  flow.repo.cleanup();
}
