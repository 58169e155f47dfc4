// `kbz --help`: the verbs in one line each and the leaf loop, under 1.5 KB (an agent reads it
// whole). Each verb's own --help carries its options and examples; docs/commands.md the rest.
// Hand-written kbz commands: the verbs in aligned columns, read as written (its flags are checked
// by test/core/text/kbz-strings.test.ts).
export const TOP_HELP = `kbz: acceptance gates, approvals and scheduling for coding agents

  kbz              dashboard on a terminal, else this folder's gates
  kbz status       gates not met, verdict (--all: every gate)
  kbz check        run approved gates, write evidence (--reverify)
  kbz lint         gate quality: oracles that cannot fail
  kbz approve      a person approves pending CHECKs (--scope S)
  kbz approvals    list, revoke, prune, explain; policy
  kbz sign         a person signs a manual gate
  kbz ci           CI: judge signed gates
  kbz init         starter GATES.md, or --scope S
  kbz plan         add a leaf; set its state
  kbz next         what may start now; --launch starts it
  kbz advance      a leaf came back: verify, release, advise
  kbz scope        OWNS leases: list, claim, release, log, bind
  kbz wave         dispatch waves step by step
  kbz verify       receipts: run, audit, explain
  kbz structure    split, regroup, check a plan
  kbz hook         Stop guard: stop, install, status
  kbz doctor       does each installed guard fire?
  kbz skill        install the agent skill
  kbz dash         live dashboard
  kbz demo         dashboard on a demo
  kbz coordinator  etcd: status, import, export

Leaf loop, after the person's kbz approve --scope S:
  kbz next --scope S --launch      # per wave
  kbz advance --scope S --leaf ID  # per returned leaf

--json: one JSON envelope. --root DIR. --coordinator etcd://H:P. -V. -h.
Exit 0 done/all met, 1 unmet/review, 2 usage/error. kbz VERB --help: a verb.
`;
