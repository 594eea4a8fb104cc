/**
 * What waits for which model (the models page): AnalysisStore's `waitingCounts`, declared here as an augmentation
 * of storage.ts's interface (that file is at its 400-line limit); both engines implement it (sqlite/stageStore.ts,
 * postgres/stages.ts) and the contract suite tests it.
 */

/** One model's waiting items in an organization (AnalysisStore.waitingCounts). */
export interface WaitingCount {
  model: string;
  /** Distinct items with some stage waiting for the model. */
  items: number;
  /** Stage name → items with that stage waiting for it. */
  stages: Record<string, number>;
}

declare module './storage.js' {
  interface AnalysisStore {
    /**
     * Per model, the organization's live items (active, current) with a stage waiting for it: how many items, and
     * how many per stage (an item waits once per stage). Models nothing waits for are absent; by model name.
     */
    waitingCounts(organizationId: string): Promise<WaitingCount[]>;
  }
}
