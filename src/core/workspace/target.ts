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
