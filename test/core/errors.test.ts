// Errors by kind (issue 26): every error kbz raises says what kind of failure it is, and the kind
// alone decides the exit code and how the CLI renders it; nothing is told apart by class list or
// by name string.
import { afterEach, describe, expect, test } from "bun:test";
import { FileProblemsError, KbzError, kindOf, ReadError, UsageError, type ErrorKind } from "../../src/core/errors.ts";
import { DispatchActionError } from "../../src/core/dispatch/waves.ts";
import { StatusLogError } from "../../src/io/dispatch/statuslog.ts";
import { WriteError } from "../../src/io/fs.ts";
import { LockTimeoutError } from "../../src/io/lock.ts";
import { CoordinatorError } from "../../src/io/coordination/etcd/client.ts";
import { PersonOnlyError } from "../../src/core/person.ts";
import { infra, RefusedError } from "../../src/ops/refused.ts";
import { fail } from "../../src/cli/envelope.ts";
import { flushOut, setOutputSink } from "../../src/cli/output.ts";

describe("the kind of each error", () => {
  const cases: [string, unknown, ErrorKind][] = [
    ["a usage error", new UsageError("--jobs must be an integer"), "usage"],
    ["a usage error whose init names another kind stays usage", new UsageError("x", { kind: "input" }), "usage"],
    ["yargs' parse error", Object.assign(new Error("Unknown argument: x"), { name: "YError" }), "usage"],
    ["a file problem", new FileProblemsError([{ file: "GATES.md", line: 3, message: "bad gate" }]), "input"],
    ["an unsafe read", new ReadError("not a regular file", "UNSAFE", "GATES.md"), "input"],
    ["a read the disk failed", new ReadError("EIO", "IO", "GATES.md"), "infrastructure"],
    ["a refused wave step", new DispatchActionError("wave w1 is sealed"), "input"],
    ["a failed write", new WriteError("ENOSPC", "GATES.md"), "infrastructure"],
    ["a lock held too long", new LockTimeoutError("timed out", "GATES.md.lock"), "infrastructure"],
    ["a status log kbz cannot append to", new StatusLogError("not a regular file"), "infrastructure"],
    ["an unreachable coordinator", new CoordinatorError("no quorum"), "infrastructure"],
    ["a person's act asked by an agent", new PersonOnlyError("approve", "CLAUDECODE is set"), "refused"],
    [
      "a bare system error",
      Object.assign(new Error("EACCES: permission denied"), { code: "EACCES", syscall: "open" }),
      "infrastructure",
    ],
    ["a TypeError (a bug in kbz)", new TypeError("x is undefined"), "bug"],
    ["a KbzError that says nothing else", new KbzError("odd"), "input"],
  ];
  for (const [name, e, kind] of cases) test(`${name}: ${kind}`, () => expect(kindOf(e)).toBe(kind));
});

describe("the kind alone decides exit code and rendering", () => {
  let text = "";
  const capture = () => {
    text = "";
    setOutputSink({ stdout: (t) => void (text += t), stderr: (t) => void (text += t) });
  };
  afterEach(() => setOutputSink(null));

  test("refused: exit 1, the verdict refused (needs review), never a usage line", () => {
    capture();
    expect(fail(new PersonOnlyError("sign", "no terminal"), false)).toBe(1);
    expect(text).toContain("kbz: refused: signing");
    expect(text).not.toContain("kbz --help");
    capture();
    expect(fail(new KbzError("a person approves this", { kind: "refused", code: "any-code" }), true)).toBe(1);
    flushOut();
    expect(JSON.parse(text)).toMatchObject({ verdict: "refused", exit: 1 });
  });

  test("usage: exit 2 and the pointer to --help, whatever the class", () => {
    capture();
    expect(fail(new KbzError("no such flag", { kind: "usage" }), false)).toBe(2);
    expect(text).toContain("kbz: no such flag");
    expect(text).toContain("kbz --help");
  });

  test("input and infrastructure: exit 2 with the place and no usage line", () => {
    capture();
    expect(fail(new WriteError("cannot write", "GATES.md"), false)).toBe(2);
    expect(text).toContain("GATES.md:1: cannot write");
    expect(text).not.toContain("kbz --help");
  });

  test("bug: exit 2, reported as an internal error to report", () => {
    capture();
    expect(fail(new KbzError("an invariant broke", { kind: "bug" }), true)).toBe(2);
    flushOut();
    const env = JSON.parse(text);
    expect(env.errors[0].message).toStartWith("internal error: ");
    expect(env.errors[0].hint).toContain("bug in kbz");
  });
});

describe("infra(): an effect's failure keeps its kind", () => {
  test("a KbzError passes unchanged (same object, same message)", async () => {
    const e = new LockTimeoutError("timed out after 10 s", "PLAN.md.lock");
    expect(await infra(() => Promise.reject(e)).catch((x) => x)).toBe(e);
  });
  test("a bare system error becomes an infrastructure refusal carrying its message whole", async () => {
    const sys = Object.assign(new Error("EROFS: read-only file system, open 'x'"), { code: "EROFS", syscall: "open" });
    const got = await infra(() => Promise.reject(sys)).catch((x) => x);
    expect(got).toBeInstanceOf(RefusedError);
    expect(got.kind).toBe("infrastructure");
    expect(got.message).toBe(sys.message);
  });
});
