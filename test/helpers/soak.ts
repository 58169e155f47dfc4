// How many rounds a soak test runs (the crash tests kill kbz at random moments, round after round).
// A developer's `npm test` runs a short soak, enough to land kills on both sides of every write;
// CI (KBZ_CI=1) and KBZ_SOAK=1 run the full count. A short soak is the same test, never a skip:
// it still fails on the first round that leaves a mixed file or a lock behind.
let told = false;

export function soakRounds(full: number, quick: number, env: Record<string, string | undefined> = process.env): number {
  if (env.KBZ_CI || env.KBZ_SOAK) return full;
  if (!told) {
    told = true;
    console.log(`soak: the crash tests run a short soak (${quick} of ${full} rounds here); KBZ_SOAK=1 runs them all (CI does)`);
  }
  return quick;
}
