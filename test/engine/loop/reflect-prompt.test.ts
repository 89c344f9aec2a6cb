import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario, type Completion, type CompletionRequest } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { stripThinking } from '../../../src/core/text';
import { SimPassThrough } from '../../fakes/sim-pass-through';

/** The simulated model, keeping each solve reply and each reflection prompt it is sent. */
class WatchingSim extends SimPassThrough {
  readonly solveReplies = new Set<string>();
  readonly reflections: string[] = [];
  override async complete(req: CompletionRequest): Promise<Completion> {
    if (req.stage === 'reflect') this.reflections.push(req.messages.map((m) => m.content).join('\n'));
    const out = await super.complete(req);
    // As the reflection shows it: reasoning traces dropped.
    if (req.stage === 'solve') this.solveReplies.add(stripThinking(out.text));
    return out;
  }
}

// QA niches keep the run free of sandbox start-ups.
const quickstart = withOverrides(loadScenario(path.resolve('scenarios/quickstart.json')), { stream: { niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } } as never);

describe('the post-task reflection prompt', () => {
  it('shows each member how the team reached its answer (the team\'s reply as written), not only the extracted answer', async () => {
    const model = new WatchingSim(quickstart.scenario.seed);
    await runScenario(quickstart, { patch: { 'stream.tasks': 8, variant: 'per-agent-memory' }, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-reflect-')), model });
    expect(model.reflections.length).toBeGreaterThanOrEqual(8);
    for (const prompt of model.reflections) {
      const shown = /\nHow the team reached it: ([\s\S]*?)\nReward:/.exec(prompt)?.[1];
      // The line holds one of the replies a member actually wrote (the team's final one), whole here: QA replies are short.
      expect(shown, prompt).toBeDefined();
      expect(model.solveReplies.has(shown!), shown).toBe(true);
    }
  });
});
