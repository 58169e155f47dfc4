// The demo's driver: a stand-in for an orchestrating agent. Every step is one real file
// transition through the core modules a real driver uses through the CLI: it asks the
// scheduler what may start, claims leases, opens, starts and seals waves, ticks leaf gates with
// reviewed evidence as the "agents" work, returns leaves, marks them VERIFIED and releases them.
// The root gates' CHECKs are left for the person to approve in the dashboard.
import { kbz } from "../core/text/command.ts";
import { adviseNext } from "../core/schedule/advise.ts";
import { readScheduleFacts } from "../ops/facts.ts";
import { DEMO_SLOTS, type DemoFolder } from "./scope.ts";
import { leafStem } from "../core/plan/leaf-id.ts";
import { demoClaim, demoDispatch, demoLog, demoRelease, demoSetStates, demoTickGate } from "../ops/demo.ts";

/** What each leaf's "agent" produces (the root gates check these files). */
const WORK: Record<string, [string, string]> = {
  "1.1": ["web/cart/cart.ts", "export const total = (items: number[]) => items.reduce((a, b) => a + b, 0);\n"],
  "1.2": ["web/api/client.ts", "export const retries = 3;\n"],
  "2.1": ["web/pay/pay.ts", "export const pay = () => 'ok';\n"],
  "2.2": ["web/ship/ship.ts", "export const quote = () => 5;\n"],
  "3.1": ["web/checkout/STATUS", "checkout wired\n"],
  "3.2": ["docs/checkout.md", "# Checkout\n\nCart, payment, shipping, done.\n"],
};

type Step = () => Promise<void>;

export interface DriverState {
  queue: Step[]; // transitions decided but not yet made, one per tick
  waves: number;
  turn: number; // round robin over in-flight leaves
  done: boolean;
}

export function newDriverState(): DriverState {
  return { queue: [], waves: 0, turn: 0, done: false };
}

const log = demoLog;
const setPlanState = demoSetStates;
const tickGate = (f: DemoFolder, id: string, agent: string) => demoTickGate(f, id, agent, WORK[id]!);

/** Decide and make the next transition. Returns false once the plan is done (verify-root). */
export async function driveOnce(f: DemoFolder, s: DriverState): Promise<boolean> {
  if (s.done) return false;
  const queued = s.queue.shift();
  if (queued) {
    await queued();
    return true;
  }
  const snap = readScheduleFacts({ root: f.root, scope: f.scope, slots: DEMO_SLOTS, order: "natural" });
  const advice = adviseNext(snap, { details: false });
  const rows = snap.plan.rows;
  const inFlight = rows.filter((r) => r.state === "IN-FLIGHT");
  // A returned leaf: the driver verifies it (its gates are met), marks it VERIFIED, releases it.
  for (const id of advice.awaitVerification) {
    await setPlanState(f, [id], "VERIFIED");
    await demoRelease(f, id);
    log(f, `demo: verified ${leafStem(id)} and released its lease`);
    return true;
  }
  // Agents at work: one gate per tick, round robin; a leaf whose gates are all met returns.
  if (inFlight.length > 0) {
    const row = inFlight[s.turn++ % inFlight.length]!;
    const leaf = leafStem(row.id);
    const wave = snap.waves.find((w) => w.started.has(leaf) && !w.returned.has(leaf) && w.state === "sealed");
    if (!wave) return true;
    const agent = wave.started.get(leaf)!.handle;
    if (!(await tickGate(f, row.id, agent)))
      await demoDispatch(f, { kind: "return", wave: wave.id, leaf: leafStem(row.id) });
    return true;
  }
  if (advice.action === "dispatch") {
    const launch = advice.launch;
    const wave = `w${++s.waves}`;
    const leaves = launch.map((id) => leafStem(id));
    if (advice.promote.length > 0) s.queue.push(() => setPlanState(f, advice.promote, "READY"));
    for (const id of launch) {
      if (advice.alreadyClaimed.includes(id)) continue;
      const owns = snap.tasks.get(id)!.access.writes;
      s.queue.push(async () => {
        const ok = await demoClaim(f, id, owns);
        log(f, ok ? `demo: claimed ${owns.join(", ")} for ${leafStem(id)}` : `demo: claim refused for ${leafStem(id)}`);
      });
    }
    s.queue.push(async () => void (await demoDispatch(f, { kind: "open", wave, leaves })));
    for (const leaf of leaves) {
      s.queue.push(
        async () => void (await demoDispatch(f, { kind: "start", wave, leaf, handle: `agent-${leaf.slice(5)}` })),
      );
    }
    s.queue.push(async () => void (await demoDispatch(f, { kind: "seal", wave })));
    s.queue.push(() => setPlanState(f, launch, "IN-FLIGHT"));
    return true;
  }
  if (advice.action === "verify-root") {
    log(
      f,
      "demo: every leaf is VERIFIED; approve the root checks in the Approvals panel (key a), then sign I3 in Gates (key s)",
    );
    s.done = true;
    return false;
  }
  // wait-or-verify or review with nothing in flight: a real driver would stop and ask a person.
  log(f, `demo: ${kbz("next")} says ${advice.action}; the driver stops here`);
  s.done = true;
  return false;
}

export function startDriver(f: DemoFolder, everyMs = 900): { stop(): void } {
  const s = newDriverState();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const tick = () => {
    driveOnce(f, s).then(
      (more) => {
        if (more && !stopped) timer = setTimeout(tick, everyMs);
      },
      (e) => {
        try {
          log(f, `demo: driver stopped: ${(e as Error).message}`);
        } catch {
          // The log itself is broken; the dashboard shows the files as they are.
        }
      },
    );
  };
  timer = setTimeout(tick, everyMs);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
