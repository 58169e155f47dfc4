// One check's container, the shape every containment level gives (contain.ts builds the POSIX
// ones, taskkill.ts the Windows one): its own module so neither builder imports the other.
/** One check's container: how to start the check in it and how to end everything in it. */
export interface Container {
  /** Start the check: `spawn` is called once, synchronously, with the argv to run. */
  start<T>(spawn: (argv: string[]) => T): T;
  /** Kill every process of the check; `leader` is the spawned process. */
  kill(leader: number | undefined): void;
  /** Kill what is left and wait (bounded) until it is gone; `exited` settles when the leader was reaped. */
  release(leader: number | undefined, exited: Promise<unknown>): Promise<void>;
  /** What the watchdog (watchdog.ts) kills if kbz dies: `cg <group dir>` or `pg <leader pid>`. */
  watch(leader: number | undefined): string | null;
}
