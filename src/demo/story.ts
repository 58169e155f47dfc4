// The demo without a terminal: the same example scope and the same driver as the live demo, run
// to its end at once, so what a pipe shows is the story the dashboard plays.
import * as fs from "node:fs";
import * as path from "node:path";
import { driveOnce, newDriverState } from "./driver.ts";
import { useDemoStore, writeDemoFolder, type DemoFolder } from "./scope.ts";

export interface DemoStory {
  folder: DemoFolder;
  /** The leaves of each dispatch wave, in order. */
  waves: { wave: string; leaves: string[] }[];
  /** Point this process back at the store it read before the demo (see useDemoStore). */
  restore(): void;
}

/** Copy the example, drive it to verify-root, and read back the waves it dispatched. */
export async function playDemo(parent?: string): Promise<DemoStory> {
  const folder = writeDemoFolder(parent);
  const restore = useDemoStore(folder);
  const s = newDriverState();
  // 50 transitions; a bound in case a change to the example ever keeps the driver going.
  for (let i = 0; i < 1000 && (await driveOnce(folder, s)); i++);
  const log = fs.readFileSync(path.join(folder.root, ".unlazy", folder.scope, "status.log"), "utf8");
  const waves = [...log.matchAll(/ dispatch (w\d+) opened: (.+)$/gm)].map((m) => ({
    wave: m[1]!,
    leaves: m[2]!.split(", "),
  }));
  return { folder, waves, restore };
}

/** Remove the demo's temporary folder (the example and its private approval store). */
export function removeDemoFolder(folder: DemoFolder): void {
  fs.rmSync(path.dirname(folder.root), { recursive: true, force: true });
}
