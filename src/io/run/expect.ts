// EXPECT matching (docs/formats.md#ledger, docs/formats.md#check-run). A substring test runs inline; a regex runs in a
// worker thread that is terminated when it exceeds its budget, so catastrophic
// backtracking cannot hang kbz. Worker startup (until the worker reports ready) has its
// own limit and does not eat into
// the match budget; at most MAX_REGEX_WORKERS exist at once, the rest wait in FIFO order.
// A worker that answered in budget is kept idle for the next match (see `idle`).
import { Worker } from "node:worker_threads";
import { MAX_REGEX_WORKERS, REGEX_STARTUP_TIMEOUT_MS, REGEX_TIMEOUT_MS } from "../../core/run/oracle.ts";

export interface MatchResult {
  matched: boolean;
  error: string | null;
}

export interface ExpectSpec {
  text: string;
  regex: { source: string; flags: string } | null;
}

// Evaluated as a worker script (CommonJS), so it also works inside the compiled binary.
// It says "ready" once its listener exists: the match budget starts only then, because
// the runtime may report "online" before the script has been evaluated. Each match is
// compiled afresh; its reply carries the match's id.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
parentPort.postMessage({ ready: true });
parentPort.on("message", (m) => {
  let reply;
  try {
    const re = new RegExp(m.source, m.flags);
    m.startedAt[0] = Date.now();
    Atomics.store(m.verdict, 2, 1);
    reply = { id: m.id, matched: re.test(m.output) };
    Atomics.store(m.verdict, 1, reply.matched ? 1 : 0);
    Atomics.store(m.verdict, 0, 1);
  }
  catch (e) { reply = { id: m.id, error: String(e && e.message ? e.message : e) }; }
  parentPort.postMessage(reply);
});
`;

let active = 0;
const waiting: (() => void)[] = [];

function acquire(): Promise<void> {
  if (active < MAX_REGEX_WORKERS) {
    active++;
    return Promise.resolve();
  }
  return new Promise((r) => waiting.push(r));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else active--;
}

// Speed trick (the only one here): starting a worker costs about 12 ms, far more than a
// check's whole spawn, and was paid by every gate with a regex EXPECT. A worker whose reply
// came back (a verdict or a pattern error) is idle, with nothing of that match left in it,
// and serves the next match. A worker that ran out of budget, failed or exited is terminated
// as before and never reused; the budget of every match is measured exactly as for a fresh
// worker. Idle workers are unref'd so they never keep kbz alive, and at most MAX_REGEX_WORKERS
// of them exist (no more run at once).
const idle: Worker[] = [];
const onIdleExit = new Map<Worker, () => void>();
let nextId = 0;

function park(worker: Worker): void {
  if (idle.length >= MAX_REGEX_WORKERS) {
    void worker.terminate().catch(() => {});
    return;
  }
  const gone = () => {
    onIdleExit.delete(worker);
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  };
  onIdleExit.set(worker, gone);
  worker.once("exit", gone);
  worker.unref();
  idle.push(worker);
}

function unpark(): Worker | null {
  const worker = idle.pop() ?? null;
  if (worker) {
    worker.off("exit", onIdleExit.get(worker)!);
    onIdleExit.delete(worker);
    worker.ref();
  }
  return worker;
}

/** Terminate the idle workers (tests use it to start from none). */
export function dropIdleWorkers(): void {
  for (const w of idle.splice(0)) {
    w.off("exit", onIdleExit.get(w)!);
    onIdleExit.delete(w);
    void w.terminate().catch(() => {});
  }
}

export interface RegexBudget {
  matchMs: number;
  startupMs: number;
}

const DEFAULT_BUDGET: RegexBudget = { matchMs: REGEX_TIMEOUT_MS, startupMs: REGEX_STARTUP_TIMEOUT_MS };

export function regexMatch(
  source: string,
  flags: string,
  output: string,
  budget: RegexBudget = DEFAULT_BUDGET,
): Promise<MatchResult> {
  return acquire().then(
    () =>
      new Promise<MatchResult>((done) => {
        let settled = false;
        let timer: ReturnType<typeof setTimeout> | null = null;
        let worker: Worker | null = null;
        const id = ++nextId;
        // Shared with the worker: [done, matched, started] and the wall time the match began.
        // The budget is measured from that start, so a worker that the OS has not scheduled
        // yet is not blamed, and a verdict reached in budget counts even when this thread
        // was too busy to read the reply in time.
        const verdict = new Int32Array(new SharedArrayBuffer(12));
        const startedAt = new Float64Array(new SharedArrayBuffer(8));
        let waitedMs = 0;
        // `reusable`: the worker's reply was received, so it holds nothing of this match.
        const finish = (r: MatchResult, reusable = false) => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          if (worker) {
            worker.off("message", onMessage);
            worker.off("error", onError);
            worker.off("exit", onExit);
            if (reusable) park(worker);
            else void worker.terminate().catch(() => {});
          }
          release();
          done(r);
        };
        const onMessage = (m: { ready?: boolean; id?: number; matched?: boolean; error?: string }) => {
          if (m.ready) match();
          else if (m.id === id)
            finish(
              m.error !== undefined ? { matched: false, error: m.error } : { matched: m.matched === true, error: null },
              true,
            );
        };
        const onError = (e: Error) => finish({ matched: false, error: e.message });
        const onExit = (code: number) =>
          finish({ matched: false, error: `EXPECT worker exited ${code} without a result` });
        const match = () => {
          if (settled) return;
          clearTimeout(timer!);
          const judge = (afterMs: number) => {
            timer = setTimeout(() => {
              waitedMs += afterMs;
              if (Atomics.load(verdict, 0) === 1)
                return finish({ matched: Atomics.load(verdict, 1) === 1, error: null });
              if (Atomics.load(verdict, 2) === 0) {
                // Not started yet: starved, not slow. Bounded by the startup limit.
                if (waitedMs < budget.startupMs) return judge(budget.matchMs);
                return finish({ matched: false, error: `EXPECT worker startup exceeded ${budget.startupMs}ms` });
              }
              const ran = Date.now() - startedAt[0]!;
              if (ran < budget.matchMs) return judge(budget.matchMs - ran);
              finish({ matched: false, error: `EXPECT regex exceeded ${budget.matchMs}ms` });
            }, afterMs);
          };
          judge(budget.matchMs);
          worker!.postMessage({ id, source, flags, output, verdict, startedAt });
        };
        const warm = unpark();
        try {
          worker = warm ?? new Worker(WORKER_SOURCE, { eval: true });
        } catch (e) {
          finish({ matched: false, error: `EXPECT worker could not start: ${(e as Error).message}` });
          return;
        }
        worker.on("message", onMessage);
        worker.on("error", onError);
        worker.on("exit", onExit);
        if (warm) match();
        else
          timer = setTimeout(
            () => finish({ matched: false, error: `EXPECT worker startup exceeded ${budget.startupMs}ms` }),
            budget.startupMs,
          );
      }),
  );
}

export function matchExpect(spec: ExpectSpec, output: string): Promise<MatchResult> {
  if (!spec.regex) return Promise.resolve({ matched: output.includes(spec.text), error: null });
  return regexMatch(spec.regex.source, spec.regex.flags, output);
}
