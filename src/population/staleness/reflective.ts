import { ask } from '../../llm/ask';
import { normalizeArchiveText } from '../../individual/archive';
import { receiverChain } from './applied-history';
import { versionGap, type StalenessDecision, type StalenessPolicy } from './policy';
import { buildStalePrompt } from './staleness-prompt';
import { parseStaleVerdict } from './staleness-parse';

/**
 * `reflective`: an item within τ is kept without a call. A staler one goes to the model once
 * (stage `reflect`), shown with the updates its receiver and its bucket took since its version;
 * the model keeps it, drops it, or patches it to say only what is still new (the patched text is
 * embedded as reflection and CoDream embed theirs: `question + "\n" + text`). An item whose receiver
 * was pruned with no successor no longer applies and is dropped without a call. A failed call, an
 * unusable reply or a failed embedding keeps the item and says why (`fallback`).
 */
export const reflective: StalenessPolicy = {
  name: 'reflective',
  description: 'for an item staler than tau, one model call sees it with the updates applied since and keeps, patches or drops it',
  decide: async (item, ctx): Promise<StalenessDecision> => {
    const gap = versionGap(item, ctx);
    if (gap <= ctx.tau) return { action: 'keep', calledModel: false };
    const { request } = item;
    const { chain, changes } = receiverChain(request.agentId, ctx.roster);
    const last = changes[changes.length - 1];
    if (last && last.successor === null) {
      return { action: 'drop', reason: `${last.agentId} was retired with no successor, so nobody can receive it`, calledModel: false };
    }
    const messages = buildStalePrompt(item, ctx.since, ctx.current, new Set(chain));
    const reply = await ask(ctx.model, messages, 'staleness', request.agentId, item.taskId, ctx.seedKey);
    if (reply.error) return { action: 'keep', calledModel: true, fallback: `model call failed: ${reply.error}` };
    const verdict = parseStaleVerdict(reply.text);
    if (!verdict) return { action: 'keep', calledModel: true, fallback: 'unusable reply' };
    const why = verdict.reason || undefined;
    if (verdict.decision === 'keep') return { action: 'keep', calledModel: true };
    if (verdict.decision === 'drop') {
      return { action: 'drop', reason: why ?? `the updates applied in the ${gap} versions since already carry it`, calledModel: true };
    }
    // A "patch" that changes nothing is a keep: the entry, its key and its id stay as they were.
    if (normalizeArchiveText(verdict.text) === normalizeArchiveText(request.entry.text)) return { action: 'keep', calledModel: true };
    let key: Float32Array | undefined;
    try {
      key = (await ctx.model.embed([`${item.question}\n${verdict.text}`]))[0];
    } catch (err) {
      return { action: 'keep', calledModel: true, fallback: `embedding the patched text failed: ${String((err as Error)?.message ?? err)}` };
    }
    if (!key || key.length !== request.entry.key.length) {
      return { action: 'keep', calledModel: true, fallback: `embedding the patched text gave a key of length ${key?.length ?? 0}, the entry's is ${request.entry.key.length}` };
    }
    return {
      action: 'patch', calledModel: true,
      reason: why ?? `part of it was already applied in the ${gap} versions since`,
      request: { ...request, entry: { ...request.entry, text: verdict.text, key } },
    };
  },
};
