import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, resumeAblation, runAblation, runAblationResumable, runScenario, type RunSummary } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { RUN_CHILD_ENTRY } from '../../../src/cli/composition';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-replay-'));
// QA niches keep these runs free of sandbox start-ups.
const quickstart = withOverrides(loadScenario(path.resolve('scenarios/quickstart.json')), { stream: { niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } } as never);
const stable = (s: RunSummary) => JSON.stringify({ ...s, runDir: undefined, timing: undefined, reportPath: undefined });

describe('run --replay', () => {
  it('re-runs a scenario from another run\'s journal with the same summary, asking no model', async () => {
    const original = await runScenario(quickstart, { patch: { 'stream.tasks': 10, 'engine.inFlight': 4 }, report: false, outDir: out(), journal: true });
    const replayed = await runScenario(quickstart, { patch: { 'stream.tasks': 10, 'engine.inFlight': 4 }, report: false, outDir: out(), replayFrom: original.runDir });
    expect(stable(replayed.summary)).toBe(stable(original.summary));
    // The replay journals what it was served (in the order it asked), so it can be replayed in turn.
    const lines = (dir: string) => readFileSync(path.join(dir, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean).sort();
    expect(lines(replayed.runDir)).toEqual(lines(original.runDir));
  });

  it('fails, naming the calls, when the journal lacks some', async () => {
    const original = await runScenario(quickstart, { patch: { 'stream.tasks': 4 }, report: false, outDir: out(), journal: true });
    await expect(runScenario(quickstart, { patch: { 'stream.tasks': 4, seed: 99 }, report: false, outDir: out(), replayFrom: original.runDir }))
      .rejects.toThrow(/^replay: \d+ calls? (is|are) not in .*journal\.jsonl: task \S+, stage \w+, agent agent-\d+, seed key /);
  });
});

describe('an interrupted ablation', () => {
  it('resumes from its directory to the table an uninterrupted one gives', async () => {
    const opts = { variants: ['evochamber', 'individual'], seeds: 2, patch: { 'stream.tasks': 6 } };
    const whole = await runAblation(quickstart, { ...opts, outDir: out() });
    const stop = new AbortController();
    const dir = out();
    const first = await runAblationResumable(quickstart, { ...opts, outDir: path.join(dir, 'a'), stop: stop.signal, onRunDone: () => stop.abort() });
    expect(first.result).toBeNull();
    const resumed = await resumeAblation(first.outDir);
    expect(resumed).not.toBeNull();
    expect(JSON.stringify(resumed!.variants, (k, v) => (k === 'runs' ? undefined : v))).toBe(JSON.stringify(whole.variants, (k, v) => (k === 'runs' ? undefined : v)));
  });

  it('resumes over worker processes (resume --jobs N) to the same table', async () => {
    const opts = { variants: ['evochamber', 'individual'], seeds: 2, patch: { 'stream.tasks': 6 } };
    const whole = await runAblation(quickstart, { ...opts, outDir: out() });
    const stop = new AbortController();
    const first = await runAblationResumable(quickstart, { ...opts, outDir: path.join(out(), 'a'), stop: stop.signal, onRunDone: () => stop.abort() });
    expect(first.result).toBeNull();
    const notes: string[] = [];
    const resumed = await resumeAblation(first.outDir, { patch: { 'sweep.jobs': 2 }, childEntry: RUN_CHILD_ENTRY, onNote: (l) => notes.push(l) });
    expect(resumed?.execution?.mode).toBe('processes');
    expect(notes).toContain('4 runs over 2 processes (this one and 1 worker)');
    expect(JSON.stringify(resumed!.variants, (k, v) => (k === 'runs' ? undefined : v))).toBe(JSON.stringify(whole.variants, (k, v) => (k === 'runs' ? undefined : v)));
  });
});
