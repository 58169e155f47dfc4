// EXPECT matching (docs/formats.md#ledger, docs/formats.md#check-run). A substring test runs inline; a regex runs in a
// fresh worker thread that is terminated when it exceeds its budget, so catastrophic
// backtracking cannot hang kbz. Worker startup (until the worker reports ready) has its
// own limit and does not eat into
// the match budget; at most MAX_REGEX_WORKERS exist at once, the rest wait in FIFO order.
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
// the runtime may report "online" before the script has been evaluated.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
parentPort.postMessage({ ready: true });
parentPort.once("message", (m) => {
  let reply;
  try {
    const re = new RegExp(m.source, m.flags);
    m.startedAt[0] = Date.now();
    Atomics.store(m.verdict, 2, 1);
    reply = { matched: re.test(m.output) };
    Atomics.store(m.verdict, 1, reply.matched ? 1 : 0);
    Atomics.store(m.verdict, 0, 1);
  }
  catch (e) { reply = { error: String(e && e.message ? e.message : e) }; }
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

export interface RegexBudget {
  matchMs: number;
  startupMs: number;
}

const DEFAULT_BUDGET: RegexBudget = { matchMs: REGEX_TIMEOUT_MS, startupMs: REGEX_STARTUP_TIMEOUT_MS };

export function regexMatch(source: string, flags: string, output: string, budget: RegexBudget = DEFAULT_BUDGET): Promise<MatchResult> {
  return acquire().then(
    () =>
      new Promise<MatchResult>((done) => {
        let settled = false;
        let timer: ReturnType<typeof setTimeout> | null = null;
        let worker: Worker | null = null;
        // Shared with the worker: [done, matched, started] and the wall time the match began.
        // The budget is measured from that start, so a worker that the OS has not scheduled
        // yet is not blamed, and a verdict reached in budget counts even when this thread
        // was too busy to read the reply in time.
        const verdict = new Int32Array(new SharedArrayBuffer(12));
        const startedAt = new Float64Array(new SharedArrayBuffer(8));
        let waitedMs = 0;
        const finish = (r: MatchResult) => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          void worker?.terminate().catch(() => {});
          release();
          done(r);
        };
        try {
          worker = new Worker(WORKER_SOURCE, { eval: true });
        } catch (e) {
          finish({ matched: false, error: `EXPECT worker could not start: ${(e as Error).message}` });
          return;
        }
        timer = setTimeout(() => finish({ matched: false, error: `EXPECT worker startup exceeded ${budget.startupMs}ms` }), budget.startupMs);
        worker.on("message", (m: { ready?: boolean; matched?: boolean; error?: string }) => {
          if (m.ready) {
            if (settled) return;
            clearTimeout(timer!);
            const judge = (afterMs: number) => {
              timer = setTimeout(() => {
                waitedMs += afterMs;
                if (Atomics.load(verdict, 0) === 1) return finish({ matched: Atomics.load(verdict, 1) === 1, error: null });
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
            worker!.postMessage({ source, flags, output, verdict, startedAt });
          } else finish(m.error !== undefined ? { matched: false, error: m.error } : { matched: m.matched === true, error: null });
        });
        worker.once("error", (e: Error) => finish({ matched: false, error: e.message }));
        worker.once("exit", (code) => finish({ matched: false, error: `EXPECT worker exited ${code} without a result` }));
      }),
  );
}

export function matchExpect(spec: ExpectSpec, output: string): Promise<MatchResult> {
  if (!spec.regex) return Promise.resolve({ matched: output.includes(spec.text), error: null });
  return regexMatch(spec.regex.source, spec.regex.flags, output);
}
