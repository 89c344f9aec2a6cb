import type { StalenessPolicy } from './policy';

/** `full`: apply every lesson and insight, however stale (the synchronous loop's behaviour). */
export const full: StalenessPolicy = {
  name: 'full',
  description: 'apply every lesson and insight, whatever its version gap',
  decide: async () => ({ action: 'keep', calledModel: false }),
};
