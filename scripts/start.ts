// `npm start`: run the freshly built binary in the folder npm was started from, with the user's
// own PATH. npm puts node_modules/.bin (of this folder and every folder above it) and its
// node-gyp-bin in front of the PATH it was given; a CHECK run from the dashboard would find the
// project's tools (and their `node`) before the user's, and its approval would bind a PATH the
// user's shell never has. userPath() gives back the PATH npm was started with.
import * as path from "node:path";

/** The PATH npm was started with: what follows npm's node-gyp-bin entry, else `env.PATH` as is. */
export function userPath(env: Record<string, string | undefined>): string | undefined {
  const value = env.PATH;
  if (value === undefined || !env.npm_lifecycle_event) return value;
  const entries = value.split(path.delimiter);
  const gyp = entries.findIndex((e) => e.endsWith(path.join("run-script", "lib", "node-gyp-bin")));
  if (gyp === -1) return value;
  return entries.slice(gyp + 1).join(path.delimiter);
}

if (import.meta.main) {
  const bin = path.join(import.meta.dir, "..", "dist", "kbz");
  const env = { ...process.env };
  const PATH = userPath(env);
  if (PATH !== undefined) env.PATH = PATH;
  // npm's own variables describe npm's run of this package, not the user's shell.
  for (const k of Object.keys(env)) if (k.startsWith("npm_") || k === "INIT_CWD") delete env[k];
  const proc = Bun.spawn([bin, ...process.argv.slice(2)], {
    cwd: process.env.INIT_CWD || process.cwd(),
    env,
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await proc.exited);
}
