// Which of kbz's files a repository keeps under version control and which stay on one machine
// (issue 43: `hook install` said "keep .unlazy/ ignored" while .unlazy/<scope>/ holds the plan and
// its ledgers). One list, read by `kbz hook install`'s message and by what writes .gitignore.

/** Machine-local state, as .gitignore lines: caches, locks, waves in flight, the hook's counters. */
export const LOCAL_STATE: readonly string[] = [
  ".kbz/",
  ".unlazy/locks/",
  ".unlazy/*/dispatch.json",
  ".unlazy/*/status.log",
  ".unlazy/*/hook-state.json",
  ".unlazy/*/session",
  ".unlazy-hook-state.json",
];

/** What the work is judged by, shared with everyone who clones it: the ledgers and the plan. */
export const COMMITTED: readonly string[] = [
  "GATES.md",
  "gates/",
  ".unlazy/*/PLAN.md",
  ".unlazy/*/ACCESS.json",
  ".unlazy/*/GATES.md",
  ".unlazy/*/gates/",
  ".unlazy/*/STRUCTURE.json",
  ".unlazy/verification-receipts.json",
];
