// The agent flow of issues 20 and 30 (test/helpers/agent-flow.ts): a fresh repository driven
// through a five-leaf scope (one kbz next --launch, then one kbz advance --launch per returned leaf) with a leaf sent
// back, a regroup and a split by name, a receipt, a cascade refreshed in one call (kbz check --stale), the root
// verification in one call and the Stop hook, only through kbz verbs.
// Prints per verb how many calls and bytes, then how many kbz invocations it took and how many
// bytes of output the agent reads (stdout + stderr of its invocations and the Stop hook); the
// person's approve and sign screens are counted apart. Targets (issue 30): ≤ 30 invocations, ≤ 6 KB; the original Kill_bezzangyi scripts
// needed 98 commands and 17 KB for a comparable task.
//   bun bench/agent-flow.ts [--transcript]
import { PERSON_VERBS, runAgentFlow } from "../test/helpers/agent-flow.ts";

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
  for (const [verb, v] of [...perVerb].sort((a, b) => b[1].bytes - a[1].bytes)) {
    console.log(
      `  ${verb.padEnd(10)} ${String(v.n).padStart(3)} calls ${String(v.bytes).padStart(6)} bytes${PERSON_VERBS.has(verb) ? "  (the person's, in their terminal)" : ""}`,
    );
  }
  console.log(`  hook stop    1 calls ${String(Buffer.byteLength(flow.hook.stdout)).padStart(6)} bytes`);
  console.log(`invocations: ${flow.invocations}`);
  console.log(`bytes the agent reads: ${flow.bytes}`);
  console.log(`bytes of the person's review screens: ${flow.personBytes}`);
} finally {
  flow.repo.cleanup();
}
