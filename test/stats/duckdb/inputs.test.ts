import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveInputs } from '@hermes-datagen/stats/internal/duckdb/inputs.js';
import { tempDir, writeFiles } from '../../util/cli.js';

describe('resolveInputs', () => {
  it('is stdin without operands', () => {
    expect(resolveInputs([], '/')).toEqual({ files: ['-'], runs: [], runOfFile: new Map(), skipped: [] });
  });

  it("expands a run directory into its JSONL files in natural order, leaving upstream's merged file beside batch files", () => {
    const dir = tempDir();
    writeFiles(dir, {
      'run/batch_10.jsonl': '',
      'run/batch_9.jsonl.gz': '',
      'run/trajectories.jsonl': '',
      'run/run.json': '{"run_name": "run"}',
      'run/checkpoint.json': '{"done": {}}',
      'run/notes.md': '',
      'a.jsonl': '',
    });
    mkdirSync(join(dir, 'run', 'sub.jsonl'));
    const inputs = resolveInputs(['a.jsonl', 'run', '-'], dir);
    expect(inputs.files).toEqual(['a.jsonl', 'run/batch_9.jsonl.gz', 'run/batch_10.jsonl', '-']);
    expect(inputs.runs).toEqual([
      {
        run: 'run',
        name: 'run',
        files: ['run/batch_9.jsonl.gz', 'run/batch_10.jsonl'],
        manifest: '{"run_name": "run"}',
        checkpoint: '{"done": {}}',
        statistics: null,
      },
    ]);
    expect(inputs.runOfFile.get('run/batch_10.jsonl')).toBe('run');
    expect(inputs.runOfFile.has('a.jsonl')).toBe(false);
  });

  it('refuses a run file that is not JSON, saying which', () => {
    const dir = tempDir();
    writeFiles(dir, { 'run/batch_0.jsonl': '', 'run/run.json': '{oops' });
    expect(() => resolveInputs(['run'], dir)).toThrow(/^run file .*run\/run\.json: not valid JSON: .*; fix or remove it to read the run$/);
  });
});
