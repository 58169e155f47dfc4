// The watchdog (issue 40 item 3): a thread of its own answers for a process whose judging never
// yields, prints the block it was given and ends the process with exit 0 (the only exit a host
// reads a block from). The main thread's claim keeps it from printing a second answer.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, tempDir } from "../../helpers/kbz.ts";

function run(body: string): { code: number | null; stdout: string; stderr: string } {
  const dir = tempDir();
  const file = path.join(dir, "spin.ts");
  fs.writeFileSync(
    file,
    `import { armWatchdog } from ${JSON.stringify(path.join(REPO, "src/io/hook/watchdog.ts"))};\n${body}\n`,
  );
  const r = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the Stop hook's watchdog", () => {
  test("judging code that never yields: the watchdog prints the block and the process exits 0", () => {
    const r = run(`await armWatchdog(200, '{"decision":"block","reason":"late"}\\n', "note\\n");\nfor (;;) {}`);
    expect(r).toEqual({ code: 0, stdout: '{"decision":"block","reason":"late"}\n', stderr: "note\n" });
  });

  test("an answer claimed in time is the only one printed", () => {
    const r = run(
      `const w = await armWatchdog(300, "WATCHDOG\\n", "");\nif (w.claim()) process.stdout.write("MAIN\\n");\nconst t = Date.now(); while (Date.now() - t < 800) {}\nprocess.exit(0);`,
    );
    expect(r.stdout).toBe("MAIN\n");
    expect(r.code).toBe(0);
  });
});
