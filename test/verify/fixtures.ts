// Crafted inputs for hermes-verify's tests: a dataset, records made from it as hermes-generate
// writes them (ids from core's promptId, tool_stats recomputed from the conversation), and a run
// directory whose statistics.json comes from hermes-stats' own summary code, so a good run is good by
// another module's reckoning than the checker's.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadToolRegistry,
  normaliseToolStats,
  promptId,
  toolErrorCounts,
  toolStatsFromConversations,
  type Tombstone,
  type Trajectory,
  type Turn,
} from '@hermes-datagen/core';
import { addTombstone, addTrajectory, emptySummary, finaliseSummary } from '@hermes-datagen/core/internal/statistics/summary.js';
import { jsonl, writeFiles } from '../util/cli.js';
import { gpt, human, system, tool, trajectory } from '../util/trajectories.js';

const REGISTRY = loadToolRegistry();

export const rowsOf = (n: number): { prompt: string }[] => Array.from({ length: n }, (_, i) => ({ prompt: `Task number ${i}: list the files.` }));

/** A record for dataset row `index` (of rows(n)): reasoning, one terminal call answered, completed. */
export function recordFor(index: number, fields: Partial<Trajectory> = {}, turns?: Turn[]): Trajectory {
  const conversations = turns ?? [
    system(['terminal', 'read_file']),
    human(`Task number ${index}: list the files.`),
    gpt({ think: 'List them with ls.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
    tool({ name: 'terminal', content: { output: 'a.txt', exit_code: 0, error: null } }),
    gpt({ think: 'One file.', text: 'There is a.txt.' }),
  ];
  const stats = toolStatsFromConversations(conversations);
  return trajectory({
    id: promptId({ prompt: `Task number ${index}: list the files.` }, index),
    prompt_index: index,
    conversations,
    toolsets_used: ['terminal', 'file'],
    tool_stats: normaliseToolStats(stats, REGISTRY),
    tool_error_counts: toolErrorCounts(stats, REGISTRY),
    ...fields,
  });
}

export function tombstoneFor(index: number): Tombstone {
  return {
    id: promptId({ prompt: `Task number ${index}: list the files.` }, index),
    prompt_index: index,
    discarded: 'no_reasoning',
    prompt: `Task number ${index}: list the files.`,
  };
}

export interface RunSpec {
  /** Dataset rows. */
  rows: number;
  /** Lines of each batch file, in order: records and tombstones. */
  batches: (Trajectory | Tombstone)[][];
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Writes prompts.jsonl beside a run directory `run/` holding batch files, trajectories.jsonl,
 * checkpoint.json, statistics.json, run.json and failures.jsonl, all consistent. Returns the paths.
 */
export function writeRun(dir: string, spec: RunSpec): { dataset: string; run: string } {
  const datasetText = jsonl(rowsOf(spec.rows));
  const run = join(dir, 'run');
  const files: Record<string, string> = { 'prompts.jsonl': datasetText };
  const summary = emptySummary();
  const done: Record<string, unknown> = {};
  const merged: string[] = [];
  spec.batches.forEach((lines, n) => {
    files[`run/batch_${n}.jsonl`] = jsonl(lines);
    for (const line of lines) {
      const id = line.id ?? '';
      if ('discarded' in line) {
        addTombstone(summary, line);
        done[id] = { prompt_index: line.prompt_index, status: 'discarded', reason: line.discarded, shard: `batch_${n}.jsonl` };
      } else {
        addTrajectory(summary, line);
        done[id] = { prompt_index: line.prompt_index, status: 'written', shard: `batch_${n}.jsonl` };
        merged.push(JSON.stringify(line));
      }
    }
  });
  const datasetHash = sha256(datasetText);
  files['run/trajectories.jsonl'] = merged.map((l) => `${l}\n`).join('');
  files['run/checkpoint.json'] = JSON.stringify({
    version: 1,
    run_name: 'run',
    dataset: { path: 'prompts.jsonl', valid_rows: spec.rows, sha256: datasetHash },
    done,
    last_updated: '2026-11-30T20:00:00.000Z',
  });
  files['run/statistics.json'] = JSON.stringify({ run_name: 'run', total_prompts: spec.rows, ...finaliseSummary(summary) }, null, 2);
  files['run/run.json'] = JSON.stringify({ version: 1, run_name: 'run', dataset: { paths: ['prompts.jsonl'], sha256: datasetHash }, invocations: [] });
  files['run/failures.jsonl'] = '';
  writeFiles(dir, files);
  return { dataset: join(dir, 'prompts.jsonl'), run };
}

/** Replaces a run file's content. */
export function rewrite(run: string, name: string, content: string): void {
  writeFileSync(join(run, name), content);
}
