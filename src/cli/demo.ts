// The built-in demo without a terminal (`kbz demo`, or `kbz` in a folder without ledgers, piped):
// the example scope played to its end by the same driver as the live demo, told in a few lines,
// its final status, what to do next; the temporary folder is removed before returning.
import { playDemo, removeDemoFolder } from "../demo/story.ts";
import { kbz } from "../core/text/command.ts";
import { snapshotFor } from "./context.ts";
import { DEMO_NEXT } from "./dashboard.ts";
import type { ExitCode } from "./envelope.ts";
import { out } from "./output.ts";
import { printStatus } from "./render.ts";

export async function printDemo(asJson: boolean, intro: string | null): Promise<ExitCode> {
  const story = await playDemo();
  try {
    const { root, scope } = story.folder;
    if (!asJson) {
      if (intro) out(intro);
      out(
        `${kbz("demo")}: scope ${scope}, a plan of 6 leaves, driven as an orchestrating agent would (${kbz("demo")} on a terminal plays it live):`,
      );
      for (const w of story.waves)
        out(`  wave ${w.wave}: ${w.leaves.join(", ")} claimed and launched; their gates met; returned and verified`);
      out("  the root gates' CHECKs wait for a person's approval (on a terminal: press 4, then a)");
      out();
    }
    // The demo's verdict is not this folder's: showing it succeeded.
    const shown = printStatus(snapshotFor({ root, scope }), asJson, true);
    if (!asJson) out(DEMO_NEXT);
    return shown === 2 ? 2 : 0;
  } finally {
    story.restore();
    removeDemoFolder(story.folder);
  }
}
