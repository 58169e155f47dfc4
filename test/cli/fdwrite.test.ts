import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { writeFdSync } from "../../src/cli/fdwrite.ts";
import { tempDir } from "../helpers/kbz.ts";

function written(data: string | Uint8Array): Buffer {
  const file = path.join(tempDir(), "out");
  const fd = fs.openSync(file, "w");
  try {
    expect(writeFdSync(fd, data)).toBe(true);
  } finally {
    fs.closeSync(fd);
  }
  return fs.readFileSync(file);
}

describe("descriptor writes", () => {
  test("ASCII, multi-byte UTF-8 and bytes arrive exactly", () => {
    expect(written("plain\n").toString()).toBe("plain\n");
    const mixed = "gate ✓ 完成 🚀\n".repeat(1000);
    expect(written(mixed).equals(Buffer.from(mixed, "utf8"))).toBe(true);
    expect(written(new Uint8Array([0, 255, 10])).equals(Buffer.from([0, 255, 10]))).toBe(true);
  });

  test("a closed descriptor is reported, not thrown", () => {
    const fd = fs.openSync(path.join(tempDir(), "x"), "w");
    fs.closeSync(fd);
    expect(writeFdSync(fd, "lost")).toBe(false);
  });

  const script = (bytes: number) => `
    const { writeFdSync } = await import(${JSON.stringify(path.resolve(import.meta.dir, "../../src/cli/fdwrite.ts"))});
    console.error(writeFdSync(1, "x".repeat(${bytes})));
  `;

  test("a write larger than a pipe's buffer arrives whole", () => {
    const r = Bun.spawnSync([process.execPath, "-e", script(4 << 20)], { stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.length).toBe(4 << 20);
    expect(r.stderr.toString().trim()).toBe("true");
  });

  test("a reader that goes away mid-stream ends the write quietly (false, no crash)", () => {
    const r = Bun.spawnSync(["sh", "-c", `"$0" -e "$1" | head -c 10 >/dev/null`, process.execPath, script(4 << 20)], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr.toString().trim()).toBe("false");
  });
});
