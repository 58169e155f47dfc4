import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

// The platform a binary was compiled for (build.ts defines it from --target, e.g. "linux-arm64-musl",
// "windows-x64"); `bun src/main.ts` reports the platform it runs on.
declare const KBZ_TARGET: string | undefined;
export const TARGET: string =
  typeof KBZ_TARGET === "string"
    ? KBZ_TARGET
    : `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

/** What `kbz --version` prints: the version and the target, e.g. `0.1.0 linux-x64`. */
export const VERSION_LINE = `${VERSION} ${TARGET}`;
