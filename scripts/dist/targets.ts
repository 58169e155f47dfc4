// Every platform `bun build --compile` produces a kbz for (Bun 1.4's target table), as npm packages.
// The package name is `kbz-<name>`, and <name> is what `kbz --version` prints after the version.
// The launcher (npm/kbz.cjs) computes the same name from process.platform, process.arch and libc.

export interface Target {
  /** linux-x64, linux-arm64-musl, windows-x64 … */
  name: string;
  /** The --target of `bun build --compile`. */
  bun: string;
  /** The npm package that holds Bun's runtime for this target (what Bun itself downloads). */
  runtime: string;
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  /** npm's `libc` field (npm 10+ skips a package whose libc does not match). */
  libc?: "glibc" | "musl";
  /** The binary's file name inside the package's bin/. */
  exe: "kbz" | "kbz.exe";
  /** What `file -b` reports for a correct binary. */
  file: RegExp;
}

// The ELF's interpreter tells glibc (ld-linux) from musl (ld-musl).
const elf = (arch: string, loader: string) => new RegExp(`^ELF 64-bit LSB .*${arch}.*interpreter /lib(64)?/${loader}`);

export const TARGETS: Target[] = [
  {
    name: "linux-x64",
    bun: "bun-linux-x64",
    runtime: "@oven/bun-linux-x64",
    os: "linux",
    cpu: "x64",
    libc: "glibc",
    exe: "kbz",
    file: elf("x86-64", "ld-linux-x86-64"),
  },
  {
    name: "linux-arm64",
    bun: "bun-linux-arm64",
    runtime: "@oven/bun-linux-aarch64",
    os: "linux",
    cpu: "arm64",
    libc: "glibc",
    exe: "kbz",
    file: elf("ARM aarch64", "ld-linux-aarch64"),
  },
  {
    name: "linux-x64-musl",
    bun: "bun-linux-x64-musl",
    runtime: "@oven/bun-linux-x64-musl",
    os: "linux",
    cpu: "x64",
    libc: "musl",
    exe: "kbz",
    file: elf("x86-64", "ld-musl-x86_64"),
  },
  {
    name: "linux-arm64-musl",
    bun: "bun-linux-arm64-musl",
    runtime: "@oven/bun-linux-aarch64-musl",
    os: "linux",
    cpu: "arm64",
    libc: "musl",
    exe: "kbz",
    file: elf("ARM aarch64", "ld-musl-aarch64"),
  },
  {
    name: "darwin-x64",
    bun: "bun-darwin-x64",
    runtime: "@oven/bun-darwin-x64",
    os: "darwin",
    cpu: "x64",
    exe: "kbz",
    file: /^Mach-O 64-bit x86_64 executable/,
  },
  {
    name: "darwin-arm64",
    bun: "bun-darwin-arm64",
    runtime: "@oven/bun-darwin-aarch64",
    os: "darwin",
    cpu: "arm64",
    exe: "kbz",
    file: /^Mach-O 64-bit arm64 executable/,
  },
  {
    name: "windows-x64",
    bun: "bun-windows-x64",
    runtime: "@oven/bun-windows-x64",
    os: "win32",
    cpu: "x64",
    exe: "kbz.exe",
    file: /^PE32\+ executable .*x86-64/,
  },
  {
    name: "windows-arm64",
    bun: "bun-windows-arm64",
    runtime: "@oven/bun-windows-aarch64",
    os: "win32",
    cpu: "arm64",
    exe: "kbz.exe",
    file: /^PE32\+ executable .*Aarch64/,
  },
];

/** The target this machine runs (the one `npm run dist -- --targets host` builds). */
export function hostTarget(): Target {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const t = TARGETS.find((t) => t.name === `${os}-${process.arch}`);
  if (!t)
    throw new Error(
      `no kbz target for this machine (${process.platform}-${process.arch}); targets: ${TARGETS.map((t) => t.name).join(", ")}`,
    );
  return t;
}

export function packageName(t: Target): string {
  return `kbz-${t.name}`;
}
