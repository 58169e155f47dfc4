// `npm run test:slow [-- N] [-- test/cli]`: run the tests (all, or the paths given) and list the N
// slowest files (default 10) with their wall time, slowest first. Bun measures each file
// (--timings/--update-timings); the figures land in node_modules/.cache/kbz-test-timings.json.
import * as fs from "node:fs";
import * as path from "node:path";

const REPO = path.join(import.meta.dir, "..");
const args = process.argv.slice(2);
const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 10);
const paths = args.filter((a) => !/^\d+$/.test(a));
const file = path.join(REPO, "node_modules", ".cache", "kbz-test-timings.json");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, JSON.stringify({ version: 1, files: {} }));

const started = performance.now();
const run = Bun.spawnSync(["bun", "test", "--timeout", "120000", `--timings=${file}`, "--update-timings", ...paths], {
  cwd: REPO,
  stdio: ["inherit", "inherit", "inherit"],
});
const wall = (performance.now() - started) / 1000;
const files = (JSON.parse(fs.readFileSync(file, "utf8")) as { files: Record<string, number> }).files;
const rows = Object.entries(files).sort((a, b) => b[1] - a[1]);
const total = rows.reduce((s, [, ms]) => s + ms, 0) / 1000;
console.log(
  `\nslowest ${Math.min(count, rows.length)} of ${rows.length} test files (run: ${wall.toFixed(0)} s wall, files sum ${total.toFixed(0)} s):`,
);
for (const [name, ms] of rows.slice(0, count)) console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${name}`);
process.exit(run.exitCode ?? 1);
