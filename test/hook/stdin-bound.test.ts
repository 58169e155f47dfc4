// Issue 15 point 8: the Stop hook decides within a bound. A payload whose writer keeps stdin open
// (`(printf '{…}'; sleep 22) | kbz hook stop`) is treated as missing after 3 s: the hook allows,
// says so on stderr, and exits 0 while the writer still holds the pipe, on the binary and on the
// Node 16 fallback, through a socket (how Node-based hosts spawn hooks) and a shell pipe.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, tempDir, writeTree } from "../helpers/kbz.ts";
import { FALLBACK, ledger, node16, stopHook, type Via } from "../helpers/hook.ts";
import { shellQuote } from "../../src/core/text/shell.ts";

setDefaultTimeout(60_000);

const root = tempDir("kbz-stdin-");
writeTree(root, { "GATES.md": ledger("u", [{ id: "G1", state: "unmet" }]) });
const payload = JSON.stringify({ cwd: root, session_id: "slow" });
const WRITER_HOLDS_MS = 22_000;

function argv(via: Via, agent: string): string[] {
  return via === "binary" ? [BIN, "hook", "stop", "--agent", agent] : [node16(), FALLBACK, "--agent", agent];
}

/** Spawn the hook with a socket on stdin, write the payload, keep the socket open. */
function heldOpen(
  via: Via,
  agent: string,
): Promise<{ code: number | null; stdout: string; stderr: string; beforeWriterClosed: boolean }> {
  const [cmd, ...args] = argv(via, agent);
  return new Promise((resolve) => {
    const child = spawn(cmd!, args, { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let writerClosed = false;
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.stdin.write(payload);
    const closer = setTimeout(() => {
      writerClosed = true;
      child.stdin.end();
    }, WRITER_HOLDS_MS);
    child.on("close", (code) => {
      clearTimeout(closer);
      resolve({ code, stdout, stderr, beforeWriterClosed: !writerClosed });
    });
  });
}

describe("the Stop hook decides within a bound", () => {
  for (const via of ["binary", "node16"] as Via[]) {
    for (const agent of ["claude", "gemini"]) {
      test(`${via} --agent ${agent}: a payload not ended is treated as missing; exit 0 while the writer still holds stdin`, async () => {
        const r = await heldOpen(via, agent);
        expect(r.beforeWriterClosed).toBe(true);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(agent === "gemini" ? "{}\n" : "");
        expect(r.stderr).toBe("kbz: the Stop payload did not end within 3 s; treated as missing, not blocking.\n");
      });
    }

    test(`${via}: (printf '{…}'; sleep 22) | kbz hook stop answers before the sleep ends`, async () => {
      const hook = argv(via, "claude").map(shellQuote).join(" ");
      const script = `(printf '%s' ${shellQuote(payload)}; sleep 22) | { ${hook}; echo "hook-exit=$?" >&2; }`;
      const child = spawn("sh", ["-c", script], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      const seen = await new Promise<boolean>((resolve) => {
        const guard = setTimeout(() => resolve(false), 15_000);
        child.stderr.on("data", (c) => {
          stderr += c;
          if (stderr.includes("hook-exit=")) {
            clearTimeout(guard);
            resolve(true);
          }
        });
      });
      process.kill(-child.pid!, "SIGKILL");
      expect(seen).toBe(true);
      expect(stderr).toContain("hook-exit=0");
      expect(stderr).toContain("did not end within 3 s");
    });

    test(`${via}: a payload that ends in time is decided as usual (no note)`, () => {
      const r = stopHook(payload, { via, cwd: root });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).decision).toBe("block");
      expect(r.stderr).toBe("");
    });
  }

  test("a shell pipe whose payload comes in two parts, the second after a pause, is read whole and decided", async () => {
    // The binary reads what a pipe already holds without its thread pool; the rest comes through the bounded read.
    const half = Math.floor(payload.length / 2);
    const hook = argv("binary", "claude").map(shellQuote).join(" ");
    const script = `(printf '%s' ${shellQuote(payload.slice(0, half))}; sleep 0.5; printf '%s' ${shellQuote(payload.slice(half))}) | ${hook}`;
    const r = Bun.spawnSync(["sh", "-c", script], { cwd: root });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout.toString()).decision).toBe("block");
    expect(r.stderr.toString()).toBe("");
  });

  test("a regular file on stdin is read whole", () => {
    const f = path.join(root, "payload.json");
    fs.writeFileSync(f, payload);
    const fd = fs.openSync(f, "r");
    try {
      const r = Bun.spawnSync([BIN, "hook", "stop"], { cwd: root, stdin: fd });
      expect(JSON.parse(r.stdout.toString()).decision).toBe("block");
    } finally {
      fs.closeSync(fd);
      fs.rmSync(f);
    }
  });
});
