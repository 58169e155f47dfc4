// The etcd key layout (docs/formats.md, "Coordinator keys"). Every key of a repository lives
// under kbz/v1/<repository>/, so one cluster serves many repositories.
export interface Keys {
  root: string;
  leases: string; // prefix of every lease of every scope: overlap is decided repository-wide
  lease(scope: string, leaf: string): string;
  scopeLeases(scope: string): string;
  dispatch(scope: string): string;
  dispatches: string;
  log(scope: string): string; // prefix; entries are `<13-digit ms>-<random>`
  session(scope: string): string;
  sessions: string;
  plan(scope: string): string; // prefix; entries are leaf ids
  plans: string;
}

export function keysFor(repository: string): Keys {
  const root = `kbz/v1/${repository}/`;
  return {
    root,
    leases: `${root}lease/`,
    lease: (scope, leaf) => `${root}lease/${scope}/${leaf}`,
    scopeLeases: (scope) => `${root}lease/${scope}/`,
    dispatch: (scope) => `${root}dispatch/${scope}`,
    dispatches: `${root}dispatch/`,
    log: (scope) => `${root}log/${scope}/`,
    session: (scope) => `${root}session/${scope}`,
    sessions: `${root}session/`,
    plan: (scope) => `${root}plan/${scope}/`,
    plans: `${root}plan/`,
  };
}
