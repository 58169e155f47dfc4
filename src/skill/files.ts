// The kill-bezzangyi skill, embedded in the binary: every file of skill/ with its path.
import skillMd from "../../skill/SKILL.md" with { type: "text" };
import gatesRef from "../../skill/references/gates.md" with { type: "text" };
import orchestrationRef from "../../skill/references/orchestration.md" with { type: "text" };
import stopHookRef from "../../skill/references/stop-hook.md" with { type: "text" };
import verificationRef from "../../skill/references/verification.md" with { type: "text" };
import structureRef from "../../skill/references/structure.md" with { type: "text" };
import accessSchema from "../../skill/references/access.schema.json" with { type: "text" };
import requestSchema from "../../skill/references/structure-request.schema.json" with { type: "text" };
import planTemplate from "../../skill/templates/PLAN.md" with { type: "text" };
import leafTemplate from "../../skill/templates/gates-leaf.md" with { type: "text" };
import nodeTemplate from "../../skill/templates/gates-node.md" with { type: "text" };
import nodeMinimalTemplate from "../../skill/templates/gates-node-minimal.md" with { type: "text" };

export const SKILL_NAME = "kill-bezzangyi";

/** Relative path → content, in a fixed order (SKILL.md first). */
export const SKILL_FILES: ReadonlyArray<readonly [string, string]> = [
  ["SKILL.md", skillMd],
  ["references/gates.md", gatesRef],
  ["references/orchestration.md", orchestrationRef],
  ["references/stop-hook.md", stopHookRef],
  ["references/verification.md", verificationRef],
  ["references/structure.md", structureRef],
  ["references/access.schema.json", accessSchema as unknown as string], // imported as text (Bun); tsc types .json as data
  ["references/structure-request.schema.json", requestSchema as unknown as string],
  ["templates/PLAN.md", planTemplate],
  ["templates/gates-leaf.md", leafTemplate],
  ["templates/gates-node.md", nodeTemplate],
  ["templates/gates-node-minimal.md", nodeMinimalTemplate],
];

export const TEMPLATES = {
  plan: planTemplate,
  leaf: leafTemplate,
  node: nodeTemplate,
  nodeMinimal: nodeMinimalTemplate,
};
