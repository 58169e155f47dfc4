import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { detectContainment, ownCgroupDir, type ContainmentLevel } from "../../../src/io/run/contain.ts";
import { runProcess } from "../../../src/io/run/spawn.ts";
import { tempDir } from "../../helpers/kbz.ts";
import { pidsWith, token } from "../../helpers/procs.ts";

setDefaultTimeout(120_000);
const env = { PATH: "/usr/bin:/bin" };

/** This process's PID namespace, as kbz names its groups with it (io/run/contain.ts). */
const PIDNS = /\[(\d+)\]/.exec(fs.readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";

describe("finding the cgroup v2 directory", () => {
  test("a hybrid layout: the cgroup2 mount at /sys/fs/cgroup/unified, kbz in the root group", () => {
    const mountinfo = [
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
    ].join("\n");
    expect(ownCgroupDir(mountinfo, "4:memory:/x\n0::/\n")).toBe("/sys/fs/cgroup/unified");
    expect(ownCgroupDir(mountinfo, "0::/user.slice/s.scope\n")).toBe("/sys/fs/cgroup/unified/user.slice/s.scope");
  });

  test("a container's sub-tree mount strips its root; no cgroup2 line means none", () => {
    const mountinfo = "50 40 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw";
    expect(ownCgroupDir(mountinfo, "0::/docker/abc/inner\n")).toBe("/sys/fs/cgroup/inner");
    expect(ownCgroupDir(mountinfo, "0::/elsewhere\n")).toBe(null);
    expect(ownCgroupDir("41 31 0:38 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu", "0::/\n")).toBe(null);
  });
});

const levels: ContainmentLevel[] = ["cgroup", "pidns"];
for (const wanted of levels) {
  const c = detectContainment(wanted);
  const works = c.level === wanted;
  describe(`containment by ${wanted}`, () => {
    if (!works) console.log(`skipping ${wanted} containment tests: not available here (${c.describe})`);
    const run = (command: string, timeoutMs: number, cwd = tempDir()) =>
      runProcess({ shell: "/bin/sh", command, cwd, env, timeoutMs, containment: c });

    test.skipIf(!works)(
      "a setsid daemon and a nohup child are gone after the check ends (checked by pid)",
      async () => {
        const d = token(),
          n = token();
        const r = await run(
          `setsid sleep ${d} >/dev/null 2>&1 & nohup sleep ${n} >/dev/null 2>&1 & sleep 0.3; echo ok`,
          30_000,
        );
        expect([r.exitCode, r.stdout.toString()]).toEqual([0, "ok\n"]);
        expect([...pidsWith(`sleep ${d}`), ...pidsWith(`sleep ${n}`)]).toEqual([]);
      },
    );

    test.skipIf(!works)("a setsid daemon and a nohup child are gone after a timeout (checked by pid)", async () => {
      const d = token(),
        n = token();
      const r = await run(`setsid sleep ${d} >/dev/null 2>&1 & nohup sleep ${n} >/dev/null 2>&1 & sleep 30`, 700);
      expect(r.timedOut).toBe(true);
      expect([...pidsWith(`sleep ${d}`), ...pidsWith(`sleep ${n}`)]).toEqual([]);
    });

    test.skipIf(!works)(
      "a child holding the pipes does not hang the check: the pass stays a pass and the child is gone",
      async () => {
        const d = token();
        const t0 = Date.now();
        const r = await run(`setsid sleep ${d} & echo ok`, 60_000);
        expect([r.exitCode, r.timedOut, r.stdout.toString()]).toEqual([0, false, "ok\n"]);
        expect(Date.now() - t0).toBeLessThan(10_000); // the daemon holds the pipes for 60 s
        expect(pidsWith(`sleep ${d}`)).toEqual([]);
      },
    );
  });
}

describe("containment by cgroup", () => {
  const c = detectContainment("cgroup");
  test.skipIf(c.level !== "cgroup")(
    "the per-check group is created under kbz's own group and removed afterwards",
    async () => {
      const dir = tempDir();
      const r = await runProcess({
        shell: "/bin/sh",
        command: "cat /proc/self/cgroup",
        cwd: dir,
        env,
        timeoutMs: 10_000,
        containment: c,
      });
      const line = r.stdout
        .toString()
        .split("\n")
        .find((l) => l.startsWith("0::"))!;
      const group = path.join(c.parent!, path.basename(line.slice(3)));
      expect(path.basename(group)).toMatch(new RegExp(`^kbz-${PIDNS}-${process.pid}-\\d+$`));
      expect(fs.existsSync(group)).toBe(false);
    },
  );
});

describe("containment by cgroup: kbz steps into the group to spawn, else a wrapper shell moves there", () => {
  const detected = detectContainment("cgroup");
  const ok = detected.level === "cgroup";
  const own = () => fs.readFileSync("/proc/self/cgroup", "utf8");
  for (const selfMove of [true, false]) {
    const c = { ...detected, selfMove };
    const way = selfMove ? "kbz steps in" : "the wrapper";
    test.skipIf(!ok || (selfMove && !detected.selfMove))(
      `${way}: the shell is born in the group, kbz is back in its own group, a setsid daemon is gone`,
      async () => {
        const before = own();
        const d = token();
        const r = await runProcess({
          shell: "/bin/sh",
          command: `setsid sleep ${d} >/dev/null 2>&1 & sleep 0.2; cat /proc/self/cgroup`,
          cwd: tempDir(),
          env,
          timeoutMs: 30_000,
          containment: c,
        });
        const line = r.stdout
          .toString()
          .split("\n")
          .find((l) => l.startsWith("0::"))!;
        expect(path.basename(line.slice(3))).toMatch(new RegExp(`^kbz-${PIDNS}-${process.pid}-\\d+$`));
        expect(own()).toBe(before);
        expect(pidsWith(`sleep ${d}`)).toEqual([]);
      },
    );
  }
});

describe("groups left by a killed kbz", () => {
  const c = detectContainment("cgroup");
  test.skipIf(c.level !== "cgroup")(
    "a group whose creator is gone (SIGKILLed kbz) is emptied and removed by the next detection",
    async () => {
      const dead = Number(spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim());
      const left = path.join(c.parent!, `kbz-${PIDNS}-${dead}-1`);
      fs.mkdirSync(left);
      fs.mkdirSync(path.join(left, `kbz-${PIDNS}-${dead + 1}-1`)); // a nested kbz's group inside it
      // A group made in another PID namespace is never judged by its pid here: it stays.
      const foreign = path.join(c.parent!, `kbz-1-${dead}-1`);
      fs.mkdirSync(foreign);
      detectContainment("cgroup");
      expect(fs.existsSync(left)).toBe(false);
      expect(fs.existsSync(foreign)).toBe(true);
      fs.rmdirSync(foreign);
    },
  );
});

describe("containment by process group", () => {
  const c = detectContainment("pgroup");
  test("says it is the weakest level and warns that daemons can escape", () => {
    expect(c.level).toBe("pgroup");
    expect(c.warning).toContain("setsid");
  });

  test("an ordinary background child is gone after the check ends", async () => {
    const n = token();
    const r = await runProcess({
      shell: "/bin/sh",
      command: `sleep ${n} >/dev/null 2>&1 & echo ok`,
      cwd: tempDir(),
      env,
      timeoutMs: 30_000,
      containment: c,
    });
    expect(r.exitCode).toBe(0);
    // SIGKILL was sent to the group; give the scheduler a moment to deliver it.
    for (let i = 0; i < 100 && pidsWith(`sleep ${n}`).length > 0; i++) await new Promise((res) => setTimeout(res, 10));
    expect(pidsWith(`sleep ${n}`)).toEqual([]);
  });
});
