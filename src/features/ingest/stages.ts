import type { Services } from '../kernel/services.js';
import type { ModelRoles } from '../../models/types.js';
import type { StageRecord } from '../../storage/types.js';

/**
 * The analysis stages of an item and the model roles each one needs, the
 * first role being the one that makes the stage (unset in the profile: the
 * stage is `off`). A stage runs only when every model it names is installed;
 * otherwise it waits for the first missing one, and the item becomes `ready`
 * with what the other stages made. Faces without a face embedder are still
 * found (they wait for the embedder for their vectors).
 */
export const STAGE_ROLES = {
  embeddings: ['embed'],
  caption: ['caption'],
  objects: ['detect'],
  faces: ['detectFaces', 'embedFaces'],
  text: ['ocr'],
  moderation: ['embed'],
} as const satisfies Record<string, readonly (keyof ModelRoles)[]>;

export type StageName = keyof typeof STAGE_ROLES;

export interface StagePlan {
  stages: StageRecord[];
  /** Whether the default embedder is installed: frame and crop vectors, moderation. */
  embed: boolean;
}

/** Which stages can run now, and what the others wait for (the facade's installed check is live). */
export function planStages(models: Services['models']): StagePlan {
  const roles = models.roles();
  const stages: StageRecord[] = [];
  for (const [stage, needs] of Object.entries(STAGE_ROLES) as [StageName, readonly (keyof ModelRoles)[]][]) {
    const maker = roles[needs[0]];
    if (!maker) {
      stages.push({ stage, state: 'off', model: null });
      continue;
    }
    const missing = needs.map((role) => roles[role]).find((name) => name && !models.modelInfo(name).installed);
    stages.push(missing ? { stage, state: 'waiting', model: missing } : { stage, state: 'done', model: maker });
  }
  return { stages, embed: models.modelInfo(roles.embed).installed };
}

/** The models some of these stages wait for that are installed now (a catch-up would do more). */
export function installedAmongWaiting(models: Services['models'], stages: StageRecord[]): string[] {
  const waiting = new Set(stages.filter((s) => s.state === 'waiting' && s.model).map((s) => s.model!));
  return [...waiting].filter((name) => isInstalled(models, name));
}

/** The models serving the ingest stages' roles that are installed now. */
export function installedStageModels(models: Services['models']): string[] {
  const roles = models.roles();
  const names = new Set<string>();
  for (const needs of Object.values(STAGE_ROLES)) for (const role of needs) if (roles[role]) names.add(roles[role]);
  return [...names].filter((name) => isInstalled(models, name)).sort();
}

function isInstalled(models: Services['models'], name: string): boolean {
  try {
    return models.modelInfo(name).installed;
  } catch {
    return false; // left the catalog
  }
}
