// `npm start` runs kbz with the user's own PATH: npm puts node_modules/.bin (where the Node 16
// devDependency answers to `node`) and its node-gyp-bin first, and a CHECK run from the
// dashboard must find the user's node, under the PATH its approval binds in a normal shell.
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { userPath } from "../../scripts/start.ts";
import { privateApprovalDir } from "../helpers/approvals.ts";
import { REPO, tempDir, writeTree } from "../helpers/kbz.ts";
import { needs } from "../helpers/needs.ts";
import { TmuxPane } from "../helpers/tmux.ts";
import { MIN_READ_MS } from "../../src/tui/state.ts";

const GYP = "/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin";

describe("userPath: the PATH npm was started with", () => {
  test("drops what npm run-script put in front: every node_modules/.bin and node-gyp-bin", () => {
    const npmPath = ["/repo/node_modules/.bin", "/node_modules/.bin", GYP, "/home/ann/bin", "/usr/bin", "/bin"].join(
      ":",
    );
    expect(userPath({ PATH: npmPath, npm_lifecycle_event: "start" })).toBe("/home/ann/bin:/usr/bin:/bin");
  });
  test("a user PATH that itself holds a node_modules/.bin keeps it", () => {
    const npmPath = ["/repo/node_modules/.bin", GYP, "/home/ann/tools/node_modules/.bin", "/usr/bin"].join(":");
    expect(userPath({ PATH: npmPath, npm_lifecycle_event: "start" })).toBe(
      "/home/ann/tools/node_modules/.bin:/usr/bin",
    );
  });
  test("outside npm, or without npm's marker entry, the PATH is left as it is", () => {
    expect(userPath({ PATH: "/repo/node_modules/.bin:/usr/bin" })).toBe("/repo/node_modules/.bin:/usr/bin");
    expect(userPath({ PATH: "/a:/b", npm_lifecycle_event: "start" })).toBe("/a:/b");
  });
});

/** The user's shell: the test runner's PATH without any node_modules folder (npm test added those). */
const USER_PATH = (process.env.PATH ?? "")
  .split(path.delimiter)
  .filter((d) => d !== "" && !d.split(path.sep).includes("node_modules"))
  .join(path.delimiter);
const USER_NODE =
  spawnSync("node", ["--version"], { encoding: "utf8", env: { ...process.env, PATH: USER_PATH } }).stdout?.trim() ?? "";
const AGENT_MARKERS = [
  "CLAUDECODE",
  "GEMINI_CLI",
  "CODEX_SANDBOX",
  "CODEX_THREAD_ID",
  "CURSOR_AGENT",
  "GOOSE_TERMINAL",
  "AGENT",
  "AI_AGENT",
];

const panes: TmuxPane[] = [];
afterEach(() => {
  for (const p of panes.splice(0)) p.kill();
});

describe.skipIf(!needs("tmux"))("npm start on a terminal", () => {
  test("a CHECK approved and run from npm start's dashboard runs the user's node, not the Node 16 devDependency", async () => {
    expect(USER_NODE).toMatch(/^v\d+\./);
    expect(USER_NODE).not.toBe("v16.20.2");
    const root = tempDir();
    writeTree(root, {
      "GATES.md": `# Gates\n\n- [ ] G1: the user's node runs the check\n  CHECK: node -e "console.log('NODE_IS ' + process.version)"\n  EXPECT: NODE_IS ${USER_NODE}\n  EVIDENCE: pending\n`,
    });
    const store = privateApprovalDir();
    const home = path.join(path.dirname(store), "home");
    fs.mkdirSync(home);
    // npm start builds dist/kbz: in a copy of the project, so the binary the other tests run is never rewritten under them.
    const project = tempDir("kbz-project-");
    const skip = new Set(["node_modules", "test", "bench", "dist", ".git"]);
    fs.cpSync(REPO, project, {
      recursive: true,
      filter: (src) => src === REPO || !skip.has(path.relative(REPO, src).split(path.sep)[0]!),
    });
    fs.symlinkSync(path.join(REPO, "node_modules"), path.join(project, "node_modules"));
    const p = new TmuxPane(120, 30);
    panes.push(p);
    // A person's shell: their PATH, no agent host's marker; npm finds the project by --prefix.
    p.start(["env", ...AGENT_MARKERS.flatMap((m) => ["-u", m]), "npm", "--prefix", project, "start"], root, {
      PATH: USER_PATH,
      UNLAZY_APPROVAL_DIR: store,
      HOME: home,
    });
    await p.waitFor((s) => s.includes("UNMET: 1 (met: 0)"), 90_000);
    p.send("4");
    await p.waitFor((s) => /APPROVE\?\s+GATES:G1/.test(s));
    p.send("a");
    // The person sees the whole oracle, with the PATH the CHECK will run under: the user's own.
    const review = await p.waitFor((s) => s.includes("approve GATES:G1?"));
    // The view labels it "PATH" and lines the value up after spaces (or "PATH=" in the one-line form).
    expect(review.replace(/\s*\n\s*/g, "")).toMatch(
      new RegExp(`PATH(=|\\s+)${USER_PATH.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    await Bun.sleep(MIN_READ_MS + 100); // a person reads before y (issue 41)
    p.send("G", "y"); // y counts once the whole view was on screen (issue 44 item 6)
    p.send("3");
    await p.waitFor((s) => s.includes("[3 Gates"));
    p.send("r");
    const screen = await p.waitFor((s) => s.includes("ALL MET") || s.includes("GATES:G1 failed"), 60_000);
    expect(screen).toContain("ALL MET");
    p.send("q");
    expect(await p.waitFor((s) => s.includes("EXIT="))).toContain("EXIT=0");
    expect(fs.readFileSync(path.join(root, "GATES.md"), "utf8")).toContain("- [x] G1: the user's node runs the check");
  }, 180_000);
});
