// Placeholder until the dispatch modules land.
import type { DemoFolder } from "./scope.ts";

export function startDriver(_folder: DemoFolder): { stop(): void } {
  return { stop() {} };
}
