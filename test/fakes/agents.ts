import { createRng, type AgentView, type Task, type Team } from '../../src/index';
import { Archive } from '../../src/individual/archive';
import { RewardHistory } from '../../src/individual/reward-history';

/** A read-only agent view for unit tests. */
export function agentView(id: string, competence: Record<string, number> = {}, exposure: Record<string, number> = {}, persona = 'You are a careful problem solver.'): AgentView {
  return {
    id, persona, archive: new Archive({ dim: 256 }), competence, exposure, history: RewardHistory.empty(), status: 'active',
    origin: { kind: 'seed', parents: [], poolVersion: 0 }, successor: null, eta: 0.1, c0: 0.5,
  };
}

/** A team of three views in role order. */
export function teamOf(a: AgentView, b: AgentView, c: AgentView): Team {
  return { members: [{ agent: a, role: 'anchor' }, { agent: b, role: 'complement' }, { agent: c, role: 'scout' }] };
}

/** A small math task. */
export function mathTask(id = 'algebra-0001', answer = '4'): Task {
  return {
    id, index: 1, niche: 'algebra', domain: 'math', difficulty: 2, block: 0,
    question: 'Solve 3x + 1 = 13.', hidden: { answer, distractors: ['3', '5'] },
  };
}

/** A seeded rng for tests. */
export const testRng = (seed = 1) => createRng(`test/${seed}`);
