// The panels by id: the container and the key handler look a panel up here, never switch on it.
import type { PanelId } from "../keys.ts";
import type { AnyPanel } from "../panel.ts";
import { approvalsPanel } from "./Approvals.tsx";
import { gatesPanel } from "./Gates.tsx";
import { graphPanel } from "./Graph.tsx";
import { logPanel } from "./Log.tsx";
import { queuePanel } from "./Queue.tsx";

export const PANEL_DEFS: Record<PanelId, AnyPanel> = {
  graph: graphPanel,
  queue: queuePanel,
  gates: gatesPanel,
  approvals: approvalsPanel,
  log: logPanel,
};
