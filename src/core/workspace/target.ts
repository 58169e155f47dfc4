// What a command targets (docs/formats.md#layout): explicit ledgers, one scope, or the legacy root ledgers.

export type TargetMode = "explicit" | "scope" | "legacy" | "none";

export interface Target {
  root: string;
  mode: TargetMode;
  scope: string | null;
  files: string[]; // absolute
  discoveryErrors: DiscoveryError[];
  /** Several scopes judged at once (the Stop hook): each one's dispatch state is judged too. */
  scopes?: string[];
}

export interface DiscoveryError {
  path: string; // absolute
  message: string;
}

/**
 * The root ledgers a legacy target reads, as a title: "GATES.md", "gates/ (3)", "GATES.md + gates/ (2)"
 * (issue 44 item 7: the dashboard named a gates/ folder that did not exist).
 */
export function legacyPlaces(t: Target): string {
  const rel = t.files.map((f) => (f.startsWith(`${t.root}/`) ? f.slice(t.root.length + 1) : f));
  const inFolder = rel.filter((r) => r.startsWith("gates/")).length;
  const parts = [...(rel.includes("GATES.md") ? ["GATES.md"] : []), ...(inFolder > 0 ? [`gates/ (${inFolder})`] : [])];
  return parts.length > 0 ? parts.join(" + ") : "no ledgers";
}
