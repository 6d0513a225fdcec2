// failures.jsonl and the failed sub-agents: which run again on --resume, and which go with their root.
import { describe, expect, it } from 'vitest';
import type { FailureRecord } from '@hermes-datagen/generate/internal/promptFailure.js';
import { FailureLog, rootId } from '@hermes-datagen/generate/internal/run/failureLog.js';
import { tempDir } from '../../util/cli.js';

function failure(id: string, parent?: string): FailureRecord {
  return {
    id,
    prompt_index: 0,
    source: 'p.jsonl',
    line: 1,
    error_class: 'timeout',
    retryable: true,
    reason: 'slow',
    failed_at: '2026-01-01T00:00:00.000Z',
    ...(parent === undefined ? {} : { parent_id: parent, depth: 1, raw: '{"prompt":"x","toolsets":[]}' }),
  };
}

describe('failed sub-agents in failures.jsonl', () => {
  it('the root of a sub-agent id is the row id before the delegation steps, even when the row id holds a slash', () => {
    expect(rootId('row7/d0.1')).toBe('row7');
    expect(rootId('row7#s1/d0.1/d2.0')).toBe('row7#s1');
    expect(rootId('team/a/d1.3')).toBe('team/a');
    expect(rootId('team/a')).toBe('team/a');
  });

  it('runs again the sub-agents whose root is written and which are not done since', async () => {
    const log = new FailureLog(tempDir());
    await log.add(failure('a/d0.0', 'a'));
    await log.add(failure('b/d0.0', 'b'));
    await log.add(failure('c/d0.0', 'c'));
    await log.add(failure('d'));
    const done = new Set(['a', 'b', 'c/d0.0']);
    expect(log.subAgentsToRun((id) => done.has(id)).map((record) => record.id)).toEqual(['a/d0.0', 'b/d0.0']);
  });

  it('keeps at the end the failure of a sub-agent of a written root, drops one whose root has no record (it runs again whole)', async () => {
    const log = new FailureLog(tempDir());
    await log.add(failure('a/d0.0', 'a'));
    await log.add(failure('b/d0.0', 'b'));
    const unresolved = await log.settle((id) => id === 'a');
    expect(unresolved.map((record) => record.id)).toEqual(['a/d0.0']);
  });
});
