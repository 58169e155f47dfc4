// Running npm from the dist scripts and tests. Under `npm run`/`npm test`, node_modules/.bin comes
// first on PATH, and there `node` is the Node 16 of the node16 devDependency, which today's npm
// refuses to run on; so npm runs with every node_modules/.bin taken off PATH.
import { spawnSync } from "node:child_process";
import * as path from "node:path";

export function npmEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  out.PATH = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((d) => d && !/[\\/]node_modules[\\/]\.bin[\\/]?$/.test(d))
    .join(path.delimiter);
  return out;
}

/** The npm executable on that PATH, or null. */
export function npmPath(env: Record<string, string> = npmEnv()): string | null {
  return Bun.which("npm", { PATH: env.PATH }) ?? null;
}

/** Run npm with `args` in `cwd`; its stdout, or an error with its output. */
export function npm(args: string[], cwd: string, extraEnv: Record<string, string> = {}): string {
  const env = { ...npmEnv(), ...extraEnv };
  const exe = npmPath(env);
  if (!exe) throw new Error("npm is not on PATH");
  const r = spawnSync(exe, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error || r.status !== 0)
    throw new Error(`npm ${args.join(" ")} failed: ${r.error?.message ?? `exit ${r.status}`}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}
