// One "machine process" of the coordinator race: claims and releases its OWNS through the etcd
// store in-process, ROUNDS times, and prints one JSON summary line. Exclusivity is judged
// afterwards from etcd's own history (test/io/coordination/race.test.ts), not by the workers.
//   bun test/helpers/coordinator-race.ts '{"root":…,"url":…,"repository":…,"leaf":…,"rounds":…,"globs":[…],"ttl":…}'
import { EtcdCoordination } from "../../src/io/coordination/etcd/coordination.ts";

const o = JSON.parse(process.argv[2]!) as {
  root: string;
  url: string;
  repository: string;
  leaf: string;
  rounds: number;
  globs: string[];
  ttl: number;
};
const store = new EtcdCoordination({
  root: o.root,
  url: o.url,
  repository: o.repository,
  ttl: o.ttl,
  keepAlive: "inline",
  retryMs: 15_000,
});
const summary = { leaf: o.leaf, granted: 0, refused: 0, released: 0, lostReleases: 0, errors: [] as string[] };

for (let i = 0; i < o.rounds; i++) {
  let r;
  try {
    r = await store.claim("race", o.leaf, o.globs);
  } catch (e) {
    summary.errors.push(`round ${i} claim: ${(e as Error).message}`);
    continue;
  }
  if (!r.ok) {
    summary.refused++;
    continue;
  }
  summary.granted++;
  await new Promise((res) => setTimeout(res, Math.floor(Math.random() * 4)));
  try {
    const rel = await store.release("race", o.leaf);
    if (rel.released.length === 1 && rel.alreadyLost.length === 0) summary.released++;
    else summary.lostReleases++;
  } catch (e) {
    summary.lostReleases++;
    summary.errors.push(`round ${i} release: ${(e as Error).message}`);
  }
}
store.close();
process.stdout.write(JSON.stringify(summary) + "\n");
