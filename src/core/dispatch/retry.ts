// A wave step retried after a crash or a lost reply: when the state already records exactly this
// step with the same values, the retry is a success that changes nothing (not a refusal).
import type { DispatchAction, DispatchState } from "./waves.ts";

/** What already records `a` (the line to print), or null when `a` is new or conflicts. */
export function alreadyRecorded(state: DispatchState, a: DispatchAction): string | null {
  const w = state.waves.get(a.wave);
  if (!w) return null;
  switch (a.kind) {
    case "open":
      return w.leaves.length === a.leaves.length && w.leaves.every((l, i) => l === a.leaves[i])
        ? `wave ${w.id} is already open with ${w.leaves.join(", ")}`
        : null;
    case "start": {
      const s = w.started.get(a.leaf);
      return s && s.handle === a.handle.trim() ? `${a.leaf} already started in ${w.id} as ${s.handle}` : null;
    }
    case "seal":
      return w.sealedAt !== undefined && w.state !== "open" ? `wave ${w.id} is already sealed` : null;
    case "return":
      return w.returned.has(a.leaf) ? `${a.leaf} already returned in ${w.id}` : null;
    case "abandon":
      return w.state === "abandoned" && w.reason === a.reason.trim()
        ? `wave ${w.id} is already abandoned for the same reason`
        : null;
  }
}
