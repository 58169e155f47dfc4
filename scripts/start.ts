// `npm start`: run the freshly built binary in the folder npm was started from.
import * as path from "node:path";

const bin = path.join(import.meta.dir, "..", "dist", "kbz");
const proc = Bun.spawn([bin, ...process.argv.slice(2)], {
  cwd: process.env.INIT_CWD || process.cwd(),
  stdio: ["inherit", "inherit", "inherit"],
});
process.exit(await proc.exited);
