// How many rounds a soak test runs (the crash tests kill kbz at random moments, round after round).
// A developer's `npm test` runs a short soak, enough to land kills on both sides of every write;
// CI (KBZ_CI=1) and KBZ_SOAK=1 run the full count. A short soak is the same test, never a skip:
// it still fails on the first round that leaves a mixed file or a lock behind.
const QUICK_SHARE = 4;
let told = false;

function full(env: Record<string, string | undefined>): boolean {
  return Boolean(env.KBZ_CI || env.KBZ_SOAK);
}

/** The one line a run prints about the soak ("" when it runs in full). */
export function soakLine(env: Record<string, string | undefined> = process.env): string {
  return full(env)
    ? ""
    : `soak: the crash tests run a short soak (1 in ${QUICK_SHARE} of their rounds); KBZ_SOAK=1 runs them all (CI does)`;
}

export function soakRounds(rounds: number, env: Record<string, string | undefined> = process.env): number {
  if (full(env)) return rounds;
  if (!told && !(env.KBZ_TEST_TOLD ?? "").split(",").includes("soak")) {
    told = true;
    console.log(soakLine(env));
  }
  return Math.ceil(rounds / QUICK_SHARE);
}
