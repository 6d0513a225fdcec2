// A small corpus of trajectories for the CLI tests: three prompts, sampled several times, with the
// outcomes the score policies and reward rules tell apart.
import type { Trajectory, Turn } from '@hermes-datagen/core';
import { gpt, human, tool, trajectory } from '../util/trajectories.js';

const SYSTEM: Turn = { from: 'system', value: 'You are a function calling AI model.\n<tools>\n[{"name": "terminal"}]\n</tools>' };
const ls = { name: 'terminal', arguments: { command: 'ls' } };

function sample(id: string, promptIndex: number, prompt: string, turns: Turn[], fields: Partial<Trajectory> = {}): Trajectory {
  return trajectory({
    id,
    prompt_index: promptIndex,
    conversations: [SYSTEM, human(prompt), ...turns],
    metadata: { batch_num: 0, timestamp: '2026-01-01T00:00:00', model: 'test/model' },
    ...fields,
  });
}

const solved = (think: string): Turn[] => [
  gpt({ think, calls: [ls] }),
  tool({ name: 'terminal', content: { output: 'a.txt', exit_code: 0, error: null }, id: 'call_1' }),
  gpt({ think: 'One file.', text: 'a.txt' }),
];

export const corpus: Trajectory[] = [
  sample('p0-a', 0, 'List the files', solved('Run ls.')),
  sample('p1-a', 1, 'Say hi', [gpt({ think: 'Greet.', text: 'Hi!' })]),
  sample(
    'p0-b',
    0,
    'List the files',
    [
      gpt({ think: 'Run ls.', calls: [ls] }),
      tool({ name: 'terminal', content: { output: '', exit_code: null, error: 'timed out after 60 s' }, id: 'call_1' }),
      gpt({ think: 'Stuck.', text: 'I could not.' }),
    ],
    { completed: false },
  ),
  sample('p0-c', 0, 'List the files', solved('List them.')),
  sample('p1-b', 1, 'Say hi', [gpt({ think: 'Greet again.', text: 'Hello!' })]),
  sample('p2-a', 2, 'Count to three', [gpt({ think: 'Count.', text: '1 2 3' })]),
];
