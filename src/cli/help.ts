// Every help page kbz prints, hand-written (issue 43): `kbz --help` (≤ 1.2 KB), one page per verb
// and one per action (`kbz plan add --help` shows plan add only), each ≤ 800 B and none equal to
// another (test/docs/help-size.test.ts). A page's first line is its usage line: a usage error of
// that verb or action prints it (cli/index.ts). Every flag a page names works there (the same
// test); the long reference is docs/commands.md, the flows are in the skill.

// Hand-written kbz commands: help text in aligned columns, read as written (its flags are checked
// by test/core/text/kbz-strings.test.ts).
export const TOP_HELP = `kbz: acceptance gates and scheduling for coding agents

  kbz status       gates not met, verdict
  kbz check        run approved gates, write evidence
  kbz lint         gates that cannot fail
  kbz approve      a person approves what is pending
  kbz approvals    list, revoke, prune, explain; policy
  kbz sign         a person signs one manual gate
  kbz ci           CI: judge signed gates
  kbz init         a GATES.md, or a scope
  kbz plan         add a leaf; set its state
  kbz next         what may start now; --launch starts it
  kbz advance      a leaf came back: verify, advise
  kbz scope        OWNS leases: list, claim, release, log, bind
  kbz wave         dispatch waves step by step
  kbz verify       receipts: run, audit, explain
  kbz structure    split, regroup, check a plan
  kbz hook         Stop guard: stop, install, status
  kbz doctor       do the guards fire?
  kbz skill        install the agent skill
  kbz dash         live dashboard
  kbz demo         dashboard on a demo plan
  kbz coordinator  etcd: status, import, export

Every verb: --json (one envelope), --root DIR. Exit 0 done, 1 unmet
or review, 2 usage/error. kbz VERB [ACTION] --help: one page.
`;

// Hand-written kbz commands: the help pages, keyed "verb" or "verb action", usage line first.
const PAGES: Record<string, string> = {
  status: `kbz status [LEDGER…] [--scope S] [--all]
Gates not met and the verdict; runs nothing, writes nothing.
  --scope S  the scope's ledgers with the solo ones (default: found)
  --all      list met gates too
Verdicts: ALL MET; UNMET (each gate: UNMET, FAILED, STALE, UNATTESTED,
VACUOUS, NO-EVIDENCE); HANDOFF REQUIRED (an ABANDON: line).
Exit 0 all met; 1 unmet or handoff; 2 invalid ledger.
`,
  check: `kbz check [LEDGER…] [--scope S] [--reverify|--stale|--probe]
Run the approved CHECKs of unmet gates; a pass writes its evidence.
  --reverify     re-run every runnable gate (before you report)
  --stale        re-run a scope's STALE gates and receipts
  --probe        re-run passes with the deliverable hidden (VACUOUS)
  --status       report only, run nothing
  --verbose      each pass, RUN lines, PATH
  --sandbox      run under bubblewrap
  --jobs N  --timeout SEC  --shell SH  --cwd DIR
An unapproved CHECK is listed with its signature, not run: a person
runs kbz approve. Exit 0 all met; 1 unmet or not approved; 2 invalid.
`,
  lint: `kbz lint [LEDGER…] [--scope S] [--strict] [--probe]
Gate quality: fixed-output CHECKs, weak EXPECTs, activity titles.
  --strict   warnings fail too
  --probe    also run the vacuity probe on passed gates
Exit 0 clean; 1 findings; 2 invalid ledger.
`,
  approve: `kbz approve [LEDGER…] [--scope S] [--verbose]
A person's act, in their terminal: review every pending CHECK oracle
(whole: CHECK, EXPECT, files, diff since the last approval) and
answer. Refused without a terminal or with an agent host's marker.
  --scope S  the scope's pending oracles, one answer for all
  --verbose  PATH and every oracle file in full
Exit 0 nothing left pending; 1 some left, or refused; 2 invalid.
`,
  approvals: `kbz approvals ACTION
Recorded CHECK approvals and the consent policy:
  list              every approval
  explain LEDGER G  what changed since G's approval
  revoke LEDGER [G] drop approvals (a person)
  prune             drop orphans, confirm REMOVED gates (a person)
  policy [person|signed|agent]  who approves (a person sets it)
ACTION --help: that action only.
`,
  "approvals list": `kbz approvals list [--json]
Every recorded approval: ledger, gate, signature, when, how given.
Exit 0.
`,
  "approvals explain": `kbz approvals explain LEDGER GATE
Why GATE is not approved: which oracle file, PATH, ENV name, CHECK
or EXPECT changed since a person approved it, with a short diff.
Exit 0 approved; 1 not approved; 2 unknown gate.
`,
  "approvals revoke": `kbz approvals revoke LEDGER [GATE] [--record NAME]
A person drops approvals: the ledger's, one gate's, or one record.
  --record NAME  a record as kbz approvals list names it
Exit 0 done; 1 refused (no person here); 2 usage.
`,
  "approvals prune": `kbz approvals prune
A person drops approvals of gates that no longer exist and confirms
REMOVED gates (deleted after a pass). Exit 0; 1 refused.
`,
  "approvals policy": `kbz approvals policy [person|signed|agent]
Show the consent policy, or (a person) set it: person (default)
gives approving and signing to a person; signed also needs each
approval and sign-off signed by an allowed signer (git's
user.signingKey); agent is unlazy's model. Exit 0; 1 refused.
`,
  sign: `kbz sign LEDGER GATE --evidence "TEXT" [--replace]
A person's act: sign one manual gate (no CHECK); ticks its box and
writes the evidence. kbz approve signs every waiting one in one run.
  --evidence TEXT  what the person checked, in words
  --replace        sign again (after an INPUTS change made it STALE)
GATE: G4 or leaf-1.1:G4. Exit 0 signed; 1 refused; 2 usage.
`,
  ci: `kbz ci [LEDGER…] [--scope S] [--junit F] [--no-sandbox]
In CI: judge every gate from the repository alone (the signed records
in .kbz/signed/ verified against the allowed signers, then the CHECK
runs); one line per gate, a Markdown summary.
  --junit F             write a JUnit XML report
  --summary F           the summary (default $GITHUB_STEP_SUMMARY)
  --allowed-signers F   default .kbz/allowed_signers
  --signers-from REV    read the signers at this revision
  --jobs N  --no-sandbox
  init [--force]        write the GitHub workflow, print GitLab's job
Exit 0 every gate met; 1 not; 2 usage or a malformed record.
`,
  init: `kbz init [--scope S]
Write a starter GATES.md here; with --scope S, .unlazy/S/ with
PLAN.md, ACCESS.json, the root GATES.md and gates/.
Exit 0 created (or already there); 2 usage.
`,
  plan: `kbz plan ACTION
Write the scope's plan (never edit PLAN.md or ACCESS.json by hand):
  add LEAF --owns GLOBS   a leaf: PLAN row, ACCESS entry, its ledger
  set LEAF STATE          move a row (send back, abandon)
ACTION --help: that action only.
`,
  "plan add": `kbz plan add LEAF --owns G,G [--needs A,B] [--scope S]
Add a leaf: its PLAN row, ACCESS.json entry and gates/leaf-LEAF.md
(write the leaf's gates there, then a person approves them).
  --owns G,G             globs it may change (required)
  --needs A,B            leaves VERIFIED before it starts
  --reads G,G            globs it reads
  --resource-reads R     shared resources read (db:test)
  --resource-writes R    shared resources written
  --tier T               judgment (default) or mechanical
  --wave N               planned wave (default: after its needs)
Example: kbz plan add --scope S 2.1 --owns 'src/b/**' --needs 1.1
Exit 0 added (or already); 2 usage or refused (nothing written).
`,
  "plan set": `kbz plan set LEAF STATE [--scope S]
Move a PLAN row: READY (send a leaf back), ABANDONED, … (the moves:
docs/formats.md). next --launch and advance move rows themselves.
Example: kbz plan set --scope S 2.1 READY
Exit 0 done (or already); 2 usage or refused.
`,
  next: `kbz next [--scope S] [--launch] [--slots N] [--details]
What may start now, read-only; --launch starts it in one call.
  --launch         claim, open a wave, start each leaf, seal
  --handle L=ID    with --launch: the host's id for a worker
  --slots N        how many leaves may run at once
  --details        why each waits, groups, the single steps
  --policy P       id-order (default) or critical-path
  --wave W  --original-order
Last line: DISPATCH, WAIT-OR-VERIFY, REVIEW (do each next: line),
VERIFY-ROOT (sign, check --reverify, scope release) or DONE.
Exit 0 dispatch, wait, verify-root, done; 1 review; 2 invalid.
`,
  advance: `kbz advance --leaf LEAF [--scope S] [--launch]
A worker came back: re-run its leaf's approved gates from the root;
all pass: VERIFIED, lease released, next step named.
  --launch   then start what may run now (as next --launch)
  --verbose  each gate's result, the whole advice
  --slots N  --timeout SEC
Fails: FAIL lines and NOT VERIFIED (send it back, advance again).
NOT APPROVED: a person runs kbz approve. A retry is safe.
Exit 0 verified; 1 not yet; 2 usage.
`,
  scope: `kbz scope ACTION [--scope S]
Scopes and OWNS leases (kbz next --launch claims for you):
  list              scopes and every lease held
  claim --leaf L    lease the leaf's OWNS paths
  release [--leaf L|--invalid]  release leases
  log TEXT          append to the scope's status.log
  bind SESSION      bind an agent session to the scope
ACTION --help: that action only.
`,
  "scope list": `kbz scope list
Every scope under .unlazy/ and every lease held (scope/leaf, globs).
Exit 0.
`,
  "scope claim": `kbz scope claim --leaf LEAF [--scope S]
Lease the leaf ledger's OWNS paths. A retry is ALREADY CLAIMED.
Exit 0 claimed; 1 a conflicting lease holds them; 2 usage.
`,
  "scope release": `kbz scope release [--scope S] [--leaf LEAF] [--invalid]
Release a leaf's lease, or every lease of the scope (after the root
is verified); --invalid removes corrupt lease records.
Exit 0 released; 2 usage.
`,
  "scope log": `kbz scope log TEXT [--scope S]
Append TEXT to .unlazy/S/status.log with the time. Exit 0.
`,
  "scope bind": `kbz scope bind SESSION [--scope S]
Bind an agent session to the scope: its Stop hook judges this scope.
Exit 0.
`,
  wave: `kbz wave ACTION --scope S --wave W
Dispatch waves step by step (kbz next --launch does open, start and
seal in one call):
  open --leaf L…           a wave of these leaves
  start --leaf L --handle H  a worker started (row IN-FLIGHT)
  seal                     every worker started
  return --leaf L          a worker came back
  abandon --reason TEXT    give the wave up (a handoff)
  status|list              one wave; every wave
ACTION --help: that action only.
`,
  "wave open": `kbz wave open --scope S --wave W --leaf L [--leaf L …]
Open wave W for these leaves (each claimed first). Exit 0; 2 refused.
`,
  "wave start": `kbz wave start --scope S --wave W --leaf L --handle H
Record that leaf L's worker started with the host's id H (the row
becomes IN-FLIGHT). Exit 0; 2 refused.
`,
  "wave seal": `kbz wave seal --scope S --wave W
Seal wave W once every leaf has started. Exit 0; 2 refused.
`,
  "wave return": `kbz wave return --scope S --wave W --leaf L
Record that leaf L's worker has stopped (kbz advance does this).
Exit 0; 2 refused.
`,
  "wave abandon": `kbz wave abandon --scope S --wave W --reason TEXT
Give wave W up: a handoff to the person. Exit 0; 2 refused.
`,
  "wave status": `kbz wave status --scope S --wave W
Wave W's state, leaves, handles and returns.
Exit 0 complete; 1 unfinished; 2 unknown wave.
`,
  "wave list": `kbz wave list --scope S
Every wave of the scope with its state. Exit 0.
`,
  verify: `kbz verify ACTION [LEDGER…]
Receipts: check once, reuse while the inputs are unchanged.
  run LEDGER      check as check --reverify, keep a receipt
  audit [LEDGER]  is each receipt current? runs nothing
  explain LEDGER  what changed since the receipt
ACTION --help: that action only.
`,
  "verify run": `kbz verify run LEDGER… [--closed] [--inputs P,P]
Check the ledgers as kbz check --reverify and keep a receipt.
  --closed      the inputs are complete: the receipt is reusable
  --inputs P,P  what the checks read (default: OWNS and reads)
  --env N,N     environment names the checks read
  --reviewed    the manual gates were reviewed
  --cwd DIR  --portable (PATH left out of the binding)
Exit 0 accepted; 1 unmet or manual review; 2 invalid.
`,
  "verify audit": `kbz verify audit [LEDGER…]
Is each receipt current (inputs, gates, environment, contract
revision, verifier unchanged)? Runs and approves nothing.
Exit 0 current; 1 stale or missing; 2 invalid.
`,
  "verify explain": `kbz verify explain LEDGER
Which input, gate, environment value, contract revision or verifier
changed since LEDGER's receipt. Exit 0 current; 1 changed; 2 invalid.
`,
  structure: `kbz structure ACTION [--scope S]
Change a scope's plan as one journaled event:
  regroup ID ID…            merge their groups (one after the other)
  split LEAF --into G G…    an unstarted leaf into parts
  check [--final]           check the plan (the S_STRUCTURE oracle)
  plan|apply --request F    a request file (plan writes nothing)
  recover                   finish a crashed apply
  report|accept|resume|reject  worker handoffs
ACTION --help: that action only.
`,
  "structure regroup": `kbz structure regroup ID ID… [--scope S] [--details]
Merge the named tasks' groups into one, run one after the other.
Refused for VERIFIED, busy or independent tasks (nothing written).
Prints the count of groups now. Raises the contract revision.
Example: kbz structure regroup --scope S 2.3 3.1
Exit 0 done (or already one group); 2 refused.
`,
  "structure split": `kbz structure split LEAF --into G,G G,G… [--scope S]
Split a leaf not yet started into parts LEAF.1, LEAF.2… owning those
globs; LEAF waits to integrate them. Write each part's gates, then a
person approves them.
Example: kbz structure split --scope S 5 --into 'src/5/a/**' 'src/5/b/**'
Exit 0 done; 2 refused (nothing written).
`,
  "structure check": `kbz structure check [--scope S] [--final] [--details]
Check the scope's structure (the S_STRUCTURE oracle), also before any
structure event: the plan as it is. Writes nothing.
  --final          every task finished and integrated
  --selection F    a launch selection JSON to check
  --details        every finding, and the groups
Exit 0 STRUCTURE_OK; 1 STRUCTURE_UNMET; 2 invalid.
`,
  "structure plan": `kbz structure plan --request FILE [--scope S] [--details]
What applying the request would do; writes nothing.
Request format: skill/references/structure-request.schema.json.
Exit 0 planned; 2 invalid.
`,
  "structure apply": `kbz structure apply --request FILE [--scope S] [--details]
Apply a structure request as one journaled event; raises the
contract revision. Exit 0 applied (or already); 2 refused.
`,
  "structure recover": `kbz structure recover [--scope S]
Roll a crashed apply forward from its journal. Exit 0; 2 refused.
`,
  "structure report": `kbz structure report --operation OP --proposal FILE [--scope S]
A worker reports on its leaf: a checkpoint and a proposed refinement
(skill/references/structure.md). Exit 0; 2 refused.
`,
  "structure accept": `kbz structure accept --operation OP --report ID --review-evidence TEXT
The parent accepts a worker's report: its refinement is applied.
Also --stop-evidence TEXT, --scope S. Exit 0; 2 refused.
`,
  "structure resume": `kbz structure resume --operation OP --report ID --review-evidence TEXT
The parent sends the worker back to its leaf as it was.
Also --stop-evidence TEXT, --scope S. Exit 0; 2 refused.
`,
  "structure reject": `kbz structure reject --operation OP --report ID --reason TEXT
The parent rejects a worker's report. Also --scope S.
Exit 0; 2 refused.
`,
  hook: `kbz hook ACTION [--agent HOST]
The Stop guard for agent hosts:
  stop      decide one stop event (the host runs it; payload on stdin)
  install   write the host's hook file (a person's act)
  status    where it is installed and whether it works
HOST: claude (default), codex, cursor, gemini, copilot, qwen, opencode.
ACTION --help: that action only.
`,
  "hook install": `kbz hook install [--agent HOST] [--scope S] [--shared|--global]
Register the Stop guard on every completion event of the host, the
deny rules for the person's acts, and .gitignore's local-state lines.
  --scope S     pin the hook to one scope
  --shared      claude: .claude/settings.json (committed)
  --global      the user's file, not the repository's
  --fallback    run hooks/stop-hook.mjs with node
  --uninstall   remove only kbz's handlers and rules
Exit 0 installed (or already); 2 usage.
`,
  "hook status": `kbz hook status [--agent HOST]
Where kbz's Stop hook is installed and whether it works (Codex: is
it trusted). Exit 0 ok; 1 something to fix (the line says what).
`,
  doctor: `kbz doctor [--agent HOST]
Does every installed stop guard fire: installed, trusted (Codex),
the host's version, a dry run of its command.
Exit 0 all fire; 1 a fix line per problem.
`,
  skill: `kbz skill ACTION
The agent skill (SKILL.md, references, templates): all an agent needs.
  install [--agent HOST] [--global]   write the skill's files
ACTION --help: that action only.
`,
  "skill install": `kbz skill install [--agent HOST] [--global]
Write the agent skill's files where the host reads them.
  --agent HOST  claude: .claude/skills; codex, cursor, gemini:
                .agents/skills
  --global      for the user, not this repository
Exit 0 installed (or unchanged); 2 usage.
`,
  dash: `kbz dash [--scope S] [--slots N]
The live dashboard (kbz status when not on a terminal): gates,
approvals, queue, graph, log; a person approves and signs there.
Exit 0.
`,
  demo: `kbz demo
The dashboard on a built-in example plan whose leaves advance while
you watch. Exit 0.
`,
  coordinator: `kbz coordinator ACTION [--coordinator etcd://H:P]
Keep leases and waves on etcd instead of files:
  status              members and every lease with its TTL
  import --scope S    S's waves, log and session: files -> etcd
  export --scope S    etcd -> files
The coordinator: --coordinator, KBZ_COORDINATOR, or .kbz/settings.json.
ACTION --help: that action only.
`,
  "coordinator status": `kbz coordinator status [--coordinator etcd://H:P]
The cluster's members and every lease held, with its TTL.
Exit 0 a quorum answered; 2 unreachable.
`,
  "coordinator import": `kbz coordinator import --scope S [--coordinator etcd://H:P]
Copy scope S's waves, status log and session from files to etcd.
Refused while the files hold leases or etcd has other waves.
Exit 0 done; 2 refused or unreachable.
`,
  "coordinator export": `kbz coordinator export --scope S [--coordinator etcd://H:P]
Copy scope S's waves, status log and session from etcd to files.
Refused while etcd holds leases or the files have other waves.
Exit 0 done; 2 refused or unreachable.
`,
};

/** The page for `kbz VERB [ACTION] --help`, or null when kbz has none (yargs' page then). */
export function helpPage(verb: string, action: string | undefined): string | null {
  return (action !== undefined ? PAGES[`${verb} ${action}`] : undefined) ?? PAGES[verb] ?? null;
}

/** Every page's key, for the size test. */
export const PAGE_KEYS: readonly string[] = Object.keys(PAGES);
