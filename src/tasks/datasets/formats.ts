import type { NicheSpec } from '../niche';
import { loadAime } from './aime';
import { loadCodeContests } from './codecontests';
import type { DatasetFilter, DatasetFormat, DatasetLoader } from './dataset-rows';
import { loadDrop } from './drop';
import { loadGsm8k } from './gsm8k';
import { loadHotpotQa } from './hotpotqa';
import { loadHumanEval } from './humaneval';
import { loadMath } from './math';
import { loadMbpp, loadMbppPlus } from './mbpp';

/** How one dataset format becomes a niche: its loader, the niche's spec, and the filters it takes. */
export interface DatasetFormatSpec {
  readonly load: DatasetLoader;
  readonly spec: Omit<NicheSpec, 'id' | 'dataset'>;
  /** Keys of `DatasetFilter` this format understands; others are scenario errors. */
  readonly filters: readonly (keyof DatasetFilter)[];
}

const BOXED = 'Give the final answer as \\boxed{...}.';
const FUNCTION = 'Give one ```python code block defining the requested function (no prints, no input()).';
const SPAN = 'End with "Answer: <short answer>" (a span, name, number or yes/no; no explanation).';

/** Every dataset format: loader, niche spec (domain, title, keywords, answer format, difficulty levels) and filters. */
export const DATASET_SPECS: Record<DatasetFormat, DatasetFormatSpec> = {
  gsm8k: { load: loadGsm8k, filters: [], spec: {
    domain: 'math', title: 'Grade-school math (GSM8K)', description: 'multi-step grade-school arithmetic word problems',
    keywords: ['arithmetic', 'word problems'], difficulties: [1], answerFormat: BOXED } },
  math: { load: loadMath, filters: ['levels', 'types'], spec: {
    domain: 'math', title: 'Competition math (MATH)', description: 'competition mathematics: algebra, number theory, counting, geometry, precalculus',
    keywords: ['algebra', 'number theory', 'geometry', 'competition math'], difficulties: [1, 2, 3, 4, 5], answerFormat: `${BOXED} Simplify it (exact fractions and radicals, no decimals).` } },
  aime: { load: loadAime, filters: ['years'], spec: {
    domain: 'math', title: 'AIME', description: 'American Invitational Mathematics Examination problems; answers are integers 0-999',
    keywords: ['olympiad', 'competition math', 'number theory', 'combinatorics'], difficulties: [3], answerFormat: `${BOXED} The answer is an integer from 0 to 999.` } },
  mbpp: { load: loadMbpp, filters: [], spec: {
    domain: 'code', title: 'Basic Python programming (MBPP)', description: 'short Python functions from a one-line description',
    keywords: ['python', 'functions'], difficulties: [1], answerFormat: FUNCTION } },
  'mbpp-plus': { load: loadMbppPlus, filters: [], spec: {
    domain: 'code', title: 'Basic Python programming, extended tests (MBPP+)', description: 'short Python functions checked against many edge-case inputs',
    keywords: ['python', 'functions', 'edge cases'], difficulties: [2], answerFormat: FUNCTION } },
  humaneval: { load: loadHumanEval, filters: [], spec: {
    domain: 'code', title: 'Function completion (HumanEval)', description: 'complete a Python function from its signature and docstring',
    keywords: ['python', 'functions', 'docstring'], difficulties: [1], answerFormat: `${FUNCTION} Include the full function with its signature.` } },
  codecontests: { load: loadCodeContests, filters: [], spec: {
    domain: 'code', title: 'Competitive programming (CodeContests)', description: 'algorithmic contest problems read from standard input, written to standard output',
    keywords: ['algorithms', 'competitive programming', 'python'], difficulties: [3],
    answerFormat: 'Give one ```python code block that defines `main()`: it reads the input from sys.stdin (input() is fine) and prints the answer. Do not call main() yourself; the grader calls it once per test.' } },
  hotpotqa: { load: loadHotpotQa, filters: [], spec: {
    domain: 'qa', title: 'Multi-hop QA (HotpotQA)', description: 'questions answered by combining facts from two passages among distractors',
    keywords: ['multi-hop', 'reading comprehension', 'passages'], difficulties: [1, 2], answerFormat: SPAN } },
  drop: { load: loadDrop, filters: [], spec: {
    domain: 'qa', title: 'Discrete reasoning over paragraphs (DROP)', description: 'reading comprehension needing counting, sorting and arithmetic over a passage',
    keywords: ['reading comprehension', 'counting', 'arithmetic'], difficulties: [2], answerFormat: SPAN } },
};
