// The schemas fix key sets and types (HF datasets / Arrow reject drift), accept upstream Hermes files,
// and describe failures with a path into the record.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validator, type Trajectory } from '@hermes-datagen/core';
import { SCHEMA_NAMES } from '@hermes-datagen/core/internal/schemas.js';
import { REPO_ROOT } from '../util/cli.js';

function trajectory(overrides: Partial<Trajectory> = {}): Trajectory {
  return {
    id: 't-1',
    prompt_index: 0,
    conversations: [
      { from: 'system', value: 'sys' },
      { from: 'human', value: 'hi' },
      { from: 'gpt', value: '<think>\n</think>\nhello' },
    ],
    metadata: { batch_num: 0, timestamp: '2026-01-15T10:30:00.123456', model: 'm' },
    completed: true,
    partial: false,
    api_calls: 1,
    toolsets_used: ['terminal'],
    tool_stats: { terminal: { count: 0, success: 0, failure: 0 } },
    tool_error_counts: { terminal: 0 },
    ...overrides,
  };
}

describe('schemas', () => {
  it('every schema compiles under ajv strict mode', () => {
    for (const name of SCHEMA_NAMES) expect(typeof validator(name)).toBe('function');
  });

  it('accepts a record of ours and one of upstream Hermes (no id)', () => {
    const check = validator('trajectory');
    expect(check(trajectory())).toBeNull();
    const { id: _id, ...upstream } = trajectory();
    expect(check(upstream)).toBeNull();
  });

  it.each([
    ['an extra top-level key', { ...trajectory(), source: 'x' }, /unexpected key "source"/],
    ['a missing key', (({ partial: _p, ...rest }) => rest)(trajectory()), /missing required key "partial"/],
    ['an unknown role', trajectory({ conversations: [{ from: 'assistant' as never, value: 'x' }] }), /\/conversations\/0\/from must be one of/],
    ['a non-string turn value', trajectory({ conversations: [{ from: 'gpt', value: 3 as never }] }), /\/conversations\/0\/value must be string/],
    [
      'a tool stat with an extra key',
      trajectory({ tool_stats: { terminal: { count: 1, success: 1, failure: 0, rate: 1 } as never } }),
      /unexpected key "rate"/,
    ],
    ['a float count', trajectory({ api_calls: 1.5 }), /\/api_calls must be integer/],
    ['a string error count', trajectory({ tool_error_counts: { terminal: '0' as never } }), /\/tool_error_counts\/terminal must be integer/],
    ['metadata without model', trajectory({ metadata: { batch_num: 0, timestamp: 't' } as never }), /\/metadata is missing required key "model"/],
    [
      'a bad key fingerprint',
      trajectory({ metadata: { batch_num: 0, timestamp: 't', model: 'm', key_fingerprint: 'sk-secret' } }),
      /key_fingerprint must match pattern/,
    ],
  ])('rejects %s', (_name, value, message) => {
    expect(validator('trajectory')(value)).toMatch(message);
  });

  it('tombstones: upstream shape and ours', () => {
    expect(validator('tombstone')({ prompt_index: 3, discarded: 'no_reasoning', prompt: 'p' })).toBeNull();
    expect(validator('tombstone')({ id: 'x', prompt_index: 3, discarded: 'no_reasoning', prompt: 'p', metadata: {} })).toBeNull();
    expect(validator('tombstone')({ prompt_index: 3, prompt: 'p' })).toMatch(/missing required key "discarded"/);
  });

  it('the checkpoint is keyed by record id', () => {
    const check = validator('checkpoint');
    const ok = {
      version: 1,
      run_name: 'r',
      endpoint: { host: 'h:1', model: 'm', key_fingerprint: '0123abcd' },
      done: {
        'p0-abc': { prompt_index: 0, status: 'written', shard: 'batch_0.jsonl' },
        'p1-def': { prompt_index: 1, status: 'discarded', reason: 'no_reasoning' },
      },
      last_updated: '2026-01-15T10:30:00Z',
    };
    expect(check(ok)).toBeNull();
    expect(check({ ...ok, completed_prompts: [0, 1] })).toMatch(/unexpected key "completed_prompts"/);
    expect(check({ ...ok, done: { x: { prompt_index: 0, status: 'failed' } } })).toMatch(/must be one of/);
  });

  it('accepts the statistics.json of upstream Hermes', () => {
    const upstream = {
      run_name: 'my_run',
      distribution: 'default',
      total_prompts: 1000,
      total_batches: 100,
      batch_size: 10,
      model: 'anthropic/claude-sonnet-4.6',
      completed_at: '2026-01-15T11:02:03.456789',
      duration_seconds: 1934.21,
      tool_statistics: { terminal: { count: 412, success: 398, failure: 14, success_rate: 96.6, failure_rate: 3.4 } },
      reasoning_statistics: { total_assistant_turns: 2210, turns_with_reasoning: 2050, turns_without_reasoning: 160 },
      discarded_no_reasoning: 7,
    };
    expect(validator('statistics')(upstream)).toBeNull();
  });

  it('the shipped tool registry matches its schema', () => {
    const registry: unknown = JSON.parse(readFileSync(`${REPO_ROOT}packages/core/registry/tools.json`, 'utf8'));
    expect(validator('tool-registry')(registry)).toBeNull();
  });

  it('a reject line matches its schema', () => {
    expect(validator('reject')({ line: 2, source: '<stdin>', reason: 'invalid JSON', raw: 'x' })).toBeNull();
    expect(validator('reject')({ line: 0, source: '<stdin>', reason: 'r', raw: 'x' })).toMatch(/\/line must be >= 1/);
  });
});

describe('compiled validators', () => {
  it('validators.generated.ts is what the schemas compile to (run `npm run schemas` after changing one)', async () => {
    // @ts-expect-error -- a plain .mjs build script without type declarations
    const { generatedSource, GENERATED } = (await import('../../packages/core/scripts/compile-schemas.mjs')) as {
      generatedSource: () => string;
      GENERATED: string;
    };
    expect(readFileSync(GENERATED, 'utf8') === generatedSource(), 'packages/core/src/validators.generated.ts is out of date').toBe(true);
  });

  it('cover every schema in schemas/', async () => {
    const { readdirSync } = await import('node:fs');
    const files = readdirSync(`${REPO_ROOT}schemas`)
      .filter((f) => f.endsWith('.schema.json'))
      .map((f) => f.replace('.schema.json', ''));
    expect([...SCHEMA_NAMES].sort()).toEqual(files.sort());
  });
});
