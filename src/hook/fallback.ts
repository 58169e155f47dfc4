// Entry of the generated Node 16 fallback (hooks/stop-hook.mjs): the same code as `kbz hook stop`.
import { stopHookMain } from "./entry.ts";

void stopHookMain(process.argv.slice(2));
