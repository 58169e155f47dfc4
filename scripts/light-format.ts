// The `format` that y18n (every yargs message) and yargs-parser get in the kbz binary instead of
// node:util's (build.ts lightFormat). Bun's node:util hands its `format` export out through a
// getter that loads node:util's whole inspect machinery, so merely importing it cost ~3.3 ms of
// every CLI start (a CPU profile of `kbz status`: `get format` -> lazyInspectModule). For what
// yargs passes (a string, string arguments, %s and %% placeholders) this returns exactly what
// util.format returns (test/scripts/light-format.test.ts); anything else goes to node:util,
// loaded then.
import { createRequire } from "node:module";

export function format(fmt: unknown, ...args: unknown[]): string {
  if (args.length === 0 && typeof fmt === "string") return fmt; // util.format's own rule: a lone string is returned as it is
  if (typeof fmt !== "string" || !args.every((a) => typeof a === "string") || /%[^s%]/.test(fmt)) {
    const util = createRequire(import.meta.url)("node:util") as typeof import("node:util");
    return util.format(fmt, ...args);
  }
  let i = 0;
  let out = fmt.replace(/%[s%]/g, (m) => (m === "%%" ? "%" : i < args.length ? (args[i++] as string) : m));
  for (; i < args.length; i++) out += " " + (args[i] as string);
  return out;
}
