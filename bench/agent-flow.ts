// The agent flow of issues 20, 30 and 43 (test/helpers/agent-flow.ts): a solo ledger (a runnable
// gate and a manual one) next to a scope of four leaves; one launch, one advance --launch per
// returned leaf (one sent back), a regroup by name, the vacuity probe, the root verification, the
// scope released, `kbz next` saying DONE and the Stop hook allowing, only through kbz verbs. The
// person runs what the PERSON lines named (approvals, the probe's approval, two sign-offs).
// Prints per verb how many calls and bytes (the agent's and the person's apart), then the totals.
// Budget (issue 43): <= 22 agent invocations, <= 2.8 KB the agent reads, <= 2 person invocations
// (the last one once `kbz approve` covers probes and sign-offs: core/text/person.ts APPROVE_COVERS_ALL).
//   bun bench/agent-flow.ts [--transcript]
import { runAgentFlow } from "../test/helpers/agent-flow.ts";

const flow = runAgentFlow();
try {
  if (process.argv.includes("--transcript")) {
    for (const s of flow.steps)
      process.stdout.write(`${s.person ? "person" : "agent"}$ kbz ${s.args.join(" ")}\n${s.stdout}${s.stderr}`);
  }
  const perVerb = new Map<string, { n: number; bytes: number }>();
  for (const s of flow.steps) {
    const key = `${s.person ? "person " : "agent  "}${s.args[0]}`;
    const v = perVerb.get(key) ?? { n: 0, bytes: 0 };
    v.n++;
    v.bytes += Buffer.byteLength(s.stdout) + Buffer.byteLength(s.stderr);
    perVerb.set(key, v);
  }
  for (const [verb, v] of [...perVerb].sort((a, b) => b[1].bytes - a[1].bytes))
    console.log(`  ${verb.padEnd(16)} ${String(v.n).padStart(3)} calls ${String(v.bytes).padStart(6)} bytes`);
  console.log(`  agent  hook stop   1 calls ${String(Buffer.byteLength(flow.hook.stdout)).padStart(6)} bytes`);
  console.log(`agent invocations: ${flow.invocations} (budget 22)`);
  console.log(`bytes the agent reads: ${flow.bytes} (budget 2800)`);
  console.log(`person invocations: ${flow.personInvocations} (budget 2), bytes of their screens: ${flow.personBytes}`);
} finally {
  flow.repo.cleanup();
}
