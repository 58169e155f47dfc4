// Which observer binds the oracle on this machine (issue 39; docs/checks.md#oracle): strace, or the
// static closure and why. `kbz doctor` prints it; `kbz check` shows it on every approval screen.
import { observerFor, observerLine } from "../io/oracle/observe.ts";

type Env = Record<string, string | undefined>;

export interface ObserverFacts {
  kind: "strace" | "static";
  /** One line for people: `strace -f (/usr/bin/strace): …` or `static closure (<why>)`. */
  line: string;
}

export function oracleObserver(env: Env): ObserverFacts {
  const o = observerFor(env);
  return { kind: o.kind, line: observerLine(o) };
}
