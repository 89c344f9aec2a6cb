import { versionGap, type StalenessPolicy } from './policy';

/** `guarded`: drop a lesson or insight whose version gap exceeds τ; keep the rest. No model call. */
export const guarded: StalenessPolicy = {
  name: 'guarded',
  description: 'drop a lesson or insight whose version gap exceeds tau; rewards always count',
  decide: async (item, ctx) => {
    const gap = versionGap(item, ctx);
    if (gap <= ctx.tau) return { action: 'keep', calledModel: false };
    return { action: 'drop', reason: `version gap ${gap} exceeds tau ${ctx.tau}`, calledModel: false };
  },
};
