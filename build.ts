// Build the single kbz executable. Run with
// `bun build.ts [--target bun-linux-x64 ...] [--outfile dist/kbz] [--executable-path <bun of that target>]`.
// `npm run dist` (scripts/dist.ts) runs it once per target for the npm packages.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import type { BunPlugin } from "bun";
import { FALLBACK_HOOK, buildFallbackHook } from "./scripts/fallback-hook.ts";
import { sourceDigest } from "./src/io/receipts/verifier.ts";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const outfile = path.resolve(flag("--outfile") ?? "dist/kbz");
const target = flag("--target");
// The Bun runtime to embed for a cross-target; without it Bun downloads its own (see scripts/dist/runtime.ts).
const executablePath = flag("--executable-path");
// What `kbz --version` names: the target without "bun-", aarch64 spelled arm64 (linux-arm64-musl).
const targetName = target
  ? target.replace(/^bun-/, "").replace("aarch64", "arm64")
  : `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

// Ink imports react-devtools-core only in development; the binary must not need it.
const stubDevtools: BunPlugin = {
  name: "stub-react-devtools-core",
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
      path: "react-devtools-core",
      namespace: "kbz-stub",
    }));
    build.onLoad({ filter: /^react-devtools-core$/, namespace: "kbz-stub" }, () => ({
      contents: "export default { initialize() {}, connectToDevTools() {} };",
      loader: "js",
    }));
  },
};

// y18n and yargs-parser import node:util's `format`, which loads node:util's inspect machinery
// on every CLI start (~3.3 ms): they get scripts/light-format.ts instead, which says why and when
// it is the same. An onResolve of "util" never fires for a builtin, so the two imports are
// rewritten where they are loaded.
const lightFormat: BunPlugin = {
  name: "light-util-format",
  setup(build) {
    build.onLoad(
      {
        filter:
          /[\\/](y18n[\\/]build[\\/]lib[\\/]platform-shims[\\/]node|yargs-parser[\\/]build[\\/]lib[\\/]index)\.js$/,
      },
      async (args) => {
        const source = await Bun.file(args.path).text();
        const from = "import { format } from 'util';";
        if (!source.includes(from)) throw new Error(`${args.path} changed: cannot find ${from}`);
        const light = path.join(import.meta.dir, "scripts", "light-format.ts");
        return { contents: source.replace(from, `import { format } from ${JSON.stringify(light)};`), loader: "js" };
      },
    );
  },
};

// string-width (used by yargs' help layout and by Ink) builds an Intl.Segmenter when its module
// loads, ~4 ms of every CLI start; create it on first use instead. Same widths, same code path.
const lazySegmenter: BunPlugin = {
  name: "string-width-lazy-segmenter",
  setup(build) {
    build.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const source = await Bun.file(args.path).text();
      const eager = "const segmenter = new Intl.Segmenter();";
      if (!source.includes(eager)) return undefined;
      const lazy =
        "let segmenterInstance; const segmenter = { segment: (text) => (segmenterInstance ??= new Intl.Segmenter()).segment(text) };";
      return { contents: source.replace(eager, lazy), loader: "js" };
    });
  },
};

// yargs' platform shim, as kbz needs it. The original evaluates process.stdout.columns when it
// loads (creating the stdout stream, ~5 ms), imports node:assert and util.inspect (~5 ms), and
// walks up from the working directory, listing every folder, to find a package.json for
// yargs' package-config lookups (kbz configures its parser itself and never reads a
// repository's package.json; listing /tmp alone cost ~12 ms). Every other member is kept.
const yargsShim: BunPlugin = {
  name: "yargs-platform-shim",
  setup(build) {
    build.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, async (args) => {
      let source = await Bun.file(args.path).text();
      const edits: [string, string][] = [
        [
          "import { notStrictEqual, strictEqual } from 'assert'",
          "const fail = (m) => { const e = new Error(m ?? 'assertion failed'); e.name = 'AssertionError'; throw e }\n" +
            "const notStrictEqual = (a, b, m) => { if (Object.is(a, b)) fail(m) }\n" +
            "const strictEqual = (a, b, m) => { if (!Object.is(a, b)) fail(m) }",
        ],
        [
          "import { inspect } from 'util'",
          "const inspect = (v) => { try { return JSON.stringify(v) } catch { return String(v) } }",
        ],
        ["findUp: escalade,", "findUp: () => undefined,"],
        // node:url's module (its URL class and validators, ~3 ms of a `kbz status` profile) for two
        // paths yargs derives from import.meta.url, a file: URL: its mainFilename (the part before
        // node_modules, none in the executable, so the working directory) and y18n's locale folder
        // (not in the executable either). The URL's own path serves both alike (on Windows it keeps a
        // leading slash: both still end in their fallback).
        [
          "import { fileURLToPath } from 'url';",
          "const fileURLToPath = (url) => decodeURIComponent(new URL(url).pathname);",
        ],
        [
          "stdColumns: typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null",
          "get stdColumns() { return typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null }",
        ],
      ];
      for (const [from, to] of edits) {
        if (!source.includes(from)) throw new Error(`yargs shim changed: cannot find ${from}`);
        source = source.replace(from, to);
      }
      return { contents: source, loader: "js" };
    });
  },
};

// The Node 16 fallback hook is generated from the same TypeScript and committed. `npm run build`
// (--write-hook) regenerates it; the test build does not, so the drift test compares the
// committed bytes with a fresh generation and fails when someone forgot to regenerate.
const hook = await buildFallbackHook();
const stale = !existsSync(FALLBACK_HOOK) || readFileSync(FALLBACK_HOOK, "utf8") !== hook;
if (stale && args.includes("--write-hook")) {
  mkdirSync(path.dirname(FALLBACK_HOOK), { recursive: true });
  writeFileSync(FALLBACK_HOOK, hook, { mode: 0o755 });
  console.log(`generated ${path.relative(process.cwd(), FALLBACK_HOOK)}`);
} else if (stale) {
  console.log(
    `note: ${path.relative(process.cwd(), FALLBACK_HOOK)} is out of date; run \`npm run build\` to regenerate it`,
  );
}

// kbz runs are short: a verb reads its ledgers, decides and exits, so most of its code runs once
// per gate, a few hundred to a few thousand times, and the JIT compiled it on background threads
// that CPU time pays for and the run ends before it pays back. The executable starts with
// JavaScriptCore's tier-up thresholds scaled by JIT_POLICY (Bun's compile.jitPolicy): that code
// stays in the interpreter, and only what is really hot (a 10,000-gate read) is compiled. CPU
// against scale 1, interleaved: `status` on 200 oracle records 0.76, `hook stop` on 1,000 gates
// 0.73, `status --json` on 10,000 gates 0.88, `next` on 10,000 leaves 0.95 (bench/cost.ts and
// bench/next.ts fixtures; 256 and 1024 gained nothing more and made `next` slower). The
// dashboard, which lives long, returns to the normal policy once it is on screen (src/tui/run.tsx).
const JIT_POLICY = 64;

mkdirSync(path.dirname(outfile), { recursive: true });
const started = performance.now();
const result = await Bun.build({
  entrypoints: [path.join(import.meta.dir, "src/main.ts")],
  compile: {
    outfile,
    ...(target ? { target } : {}),
    ...(executablePath ? { executablePath } : {}),
    autoloadDotenv: false,
    autoloadBunfig: false,
    jitPolicy: JIT_POLICY,
  } as any,
  minify: process.env.KBZ_NO_MINIFY !== "1",
  bytecode: true,
  format: "esm",
  // Each verb's modules (and Ink/React for the dashboard) become chunks that load on first
  // import, so `kbz --version` and `kbz hook stop` never decode the bytecode of the rest.
  splitting: true,
  outdir: path.dirname(outfile),
  sourcemap: "none",
  define: {
    "process.env.DEV": JSON.stringify("false"),
    "process.env.NODE_ENV": JSON.stringify("production"),
    // The receipts' verifier identity: the same digest `bun test` runs compute from src/.
    KBZ_BUILD_DIGEST: JSON.stringify(sourceDigest(path.join(import.meta.dir, "src"))),
    KBZ_TARGET: JSON.stringify(targetName),
  },
  plugins: [stubDevtools, lightFormat, lazySegmenter, yargsShim],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`built ${path.relative(process.cwd(), outfile)} in ${Math.round(performance.now() - started)} ms`);
