// One worker of the lease concurrency test: claim, prove exclusivity, release, N times, through
// the core API in-process (one bun process per worker). Prints one JSON summary line.
//   bun test/helpers/lease-churn.ts ROOT LEAF GROUP ITERATIONS GLOB [GLOB...]
// GROUP "shared" workers all overlap each other; they prove mutual exclusion with an exclusive
// mkdir witness that exists only while a shared lease is held. Other groups must never be refused.
import * as fs from "node:fs";
import * as path from "node:path";
import { claimLease, releaseLeases } from "../../src/io/dispatch/leases.ts";
import { readLeaseRecords } from "../../src/io/read.ts";

const [root, leaf, group, iterations, ...globs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  ...string[],
];
const scope = "churn";
const witness = path.join(root, "witness-shared");
const summary = { leaf, claimed: 0, refused: 0, violations: [] as string[], lost: [] as string[] };

for (let i = 0; i < Number(iterations); i++) {
  const r = await claimLease(root, scope, leaf, globs, { timeoutMs: 120_000 });
  if (!r.ok) {
    summary.refused++;
    if (group !== "shared") summary.violations.push(`iteration ${i}: disjoint claim refused`);
    for (const c of r.conflicts) {
      if (c.kind === "identity" || c.holder.invalid || !c.holder.leaf.startsWith("shared-")) {
        summary.violations.push(`iteration ${i}: unexpected conflict ${JSON.stringify(c)}`);
      }
    }
    continue;
  }
  summary.claimed++;
  if (group === "shared") {
    try {
      fs.mkdirSync(witness);
    } catch {
      summary.violations.push(`iteration ${i}: another overlapping lease was held at the same time`);
    }
  }
  const mine = readLeaseRecords(root).filter((l) => !l.invalid && l.scope === scope && l.leaf === leaf);
  if (mine.length !== 1 || !fs.existsSync(r.lease.file)) summary.lost.push(`iteration ${i}: held lease not found`);
  if (group === "shared") fs.rmSync(witness, { recursive: true, force: true });
  const { released } = await releaseLeases(root, scope, leaf, { timeoutMs: 120_000 });
  if (released.length !== 1) summary.lost.push(`iteration ${i}: release removed ${released.length}`);
}
process.stdout.write(JSON.stringify(summary) + "\n");
