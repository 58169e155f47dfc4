// EXPECT matching (unlazy §2.4, §3.1.9). A substring test runs inline; a regex runs in a
// fresh worker thread that is terminated when it exceeds its budget, so catastrophic
// backtracking cannot hang kbz. Worker startup (until the worker reports ready) has its
// own limit and does not eat into
// the match budget; at most MAX_REGEX_WORKERS exist at once, the rest wait in FIFO order.
import { Worker } from "node:worker_threads";
import { MAX_REGEX_WORKERS, REGEX_STARTUP_TIMEOUT_MS, REGEX_TIMEOUT_MS } from "./oracle.ts";

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
    reply = { matched: new RegExp(m.source, m.flags).test(m.output) };
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
        // The worker flags its verdict here before replying, so a main thread that was
        // too busy to read the reply in time still sees a match that finished in budget.
        const verdict = new Int32Array(new SharedArrayBuffer(8));
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
            timer = setTimeout(() => {
              if (Atomics.load(verdict, 0) === 1) finish({ matched: Atomics.load(verdict, 1) === 1, error: null });
              else finish({ matched: false, error: `EXPECT regex exceeded ${budget.matchMs}ms` });
            }, budget.matchMs);
            worker!.postMessage({ source, flags, output, verdict });
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
