// DIR/README.md of a `hermes-stats card` folder: the Hub's YAML front matter (configs with data_files, license,
// language, task_categories, size_categories, tags) and a body written from the facts alone, so every number
// in it is the stream summary's (statistics.json) or another counted fact: nothing is typed in by hand.
import type { StatisticsSummary } from '@hermes-datagen/core';
import type { CardFacts } from './cardFacts.js';
import type { DatasetColumn, DatasetFormat } from './datasetRows.js';

export interface CardSettings {
  readonly prettyName: string;
  readonly license: string;
  readonly languages: readonly string[];
  readonly taskCategories: readonly string[];
  readonly tags: readonly string[];
  readonly format: DatasetFormat;
  readonly columns: readonly DatasetColumn[];
  readonly rows: number;
  readonly files: readonly string[];
}

/** The Hub's size_categories buckets. */
export function sizeCategory(rows: number): string {
  const buckets: [number, string][] = [
    [1e3, 'n<1K'],
    [1e4, '1K<n<10K'],
    [1e5, '10K<n<100K'],
    [1e6, '100K<n<1M'],
    [1e7, '1M<n<10M'],
    [1e8, '10M<n<100M'],
    [1e9, '100M<n<1B'],
  ];
  return buckets.find(([limit]) => rows < limit)?.[1] ?? 'n>1B';
}

export function renderCard(facts: CardFacts, card: CardSettings): string {
  const { summary } = facts;
  const yamlList = (name: string, items: readonly string[]): string[] => [`${name}:`, ...items.map((item) => `- ${yamlString(item)}`)];
  const front = [
    '---',
    `pretty_name: ${yamlString(card.prettyName)}`,
    `license: ${yamlString(card.license)}`,
    ...yamlList('language', card.languages),
    ...yamlList('task_categories', card.taskCategories),
    ...yamlList('size_categories', [sizeCategory(card.rows)]),
    ...yamlList('tags', card.tags),
    'configs:',
    '- config_name: default',
    '  data_files:',
    '  - split: train',
    '    path: data/train-*',
    '---',
  ];
  const body = [
    `# ${card.prettyName}`,
    '',
    `${card.rows} ${card.format === 'chat' ? 'agent conversations in OpenAI chat form (messages with tool_calls, tool results, reasoning_content; tools as JSON schemas)' : 'Hermes agent trajectories (ShareGPT conversations with <tool_call> / <tool_response> blocks)'}, ` +
      `made with hermes-datagen and written by \`hermes-stats card --format ${card.format}\` ` +
      `as ${card.files.length} Parquet file${card.files.length === 1 ? '' : 's'} in \`data/\` with one schema.`,
    '',
    ...loading(card.format),
    ...counts(facts, card.rows),
    ...models(facts),
    ...toolsets(summary),
    ...tools(summary),
    ...reasoning(summary),
    ...filters(facts),
    ...compression(facts),
    ...generation(facts),
    '## Fields',
    '',
    table(
      ['column', 'type', 'meaning'],
      card.columns.map((c) => [`\`${c.name}\``, `\`${c.type}\``, c.describe]),
    ),
    '',
  ];
  return [...front, '', ...body].join('\n');
}

function loading(format: DatasetFormat): string[] {
  const lines = [
    '## Loading',
    '',
    '```python',
    'from datasets import load_dataset',
    '',
    'ds = load_dataset("parquet", data_files="data/train-*.parquet", split="train")  # or load_dataset("USER/NAME") once uploaded',
  ];
  if (format === 'chat') {
    lines.push(
      '# tools is JSON text (one fixed column type across rows); chat templates take the parsed list:',
      'import json',
      'ds = ds.map(lambda row: {"tools": json.loads(row["tools"])})',
    );
  }
  lines.push('```', '');
  return lines;
}

function counts(facts: CardFacts, rows: number): string[] {
  const { summary } = facts;
  const table_rows: string[][] = [
    ['rows in this dataset', String(rows)],
    ['trajectories', String(summary.trajectories)],
    ['completed', `${summary.completed} (${summary.completed_rate}%)`],
    ['partial', `${summary.partial} (${summary.partial_rate}%)`],
    ['api calls', `${summary.api_calls.total} (median ${summary.api_calls.median ?? 0}, max ${summary.api_calls.max ?? 0})`],
    ['turns', `${summary.turns.total} (median ${summary.turns.median ?? 0}, max ${summary.turns.max ?? 0})`],
  ];
  if (summary.usage.trajectories > 0) {
    table_rows.push(['prompt tokens', String(summary.usage.prompt_tokens)], ['completion tokens', String(summary.usage.completion_tokens)]);
  }
  if (facts.recordsLeftOut > 0) table_rows.push(['records left out (not convertible)', String(facts.recordsLeftOut)]);
  return ['## Counts', '', table(['', 'count'], table_rows), ''];
}

function models(facts: CardFacts): string[] {
  const { by_model } = facts.summary;
  const lines = [
    '## Models',
    '',
    table(
      ['model', 'trajectories', 'completed', 'tool calls', 'tool failures'],
      Object.entries(by_model).map(([model, g]) => [
        model,
        String(g.trajectories),
        `${g.completed} (${g.completed_rate}%)`,
        String(g.tool_calls),
        String(g.tool_failures),
      ]),
    ),
    '',
  ];
  const served = Object.entries(facts.servedModels);
  if (served.length > 0) {
    lines.push(
      'Served models (the model id the endpoint reported answering, `metadata.served_model`):',
      '',
      table(
        ['served model', 'trajectories'],
        served.map(([model, n]) => [model, String(n)]),
      ),
      '',
    );
  }
  return lines;
}

function toolsets(summary: StatisticsSummary): string[] {
  const rows = Object.entries(summary.by_toolset);
  if (rows.length === 0) return [];
  return [
    '## Toolsets',
    '',
    table(
      ['toolset', 'trajectories', 'completed', 'tool calls', 'tool failures'],
      rows.map(([name, g]) => [name, String(g.trajectories), `${g.completed} (${g.completed_rate}%)`, String(g.tool_calls), String(g.tool_failures)]),
    ),
    '',
  ];
}

function tools(summary: StatisticsSummary): string[] {
  const rows = Object.entries(summary.tool_statistics);
  const lines = ['## Tools', ''];
  if (rows.length === 0) return [...lines, 'No tool was called.', ''];
  lines.push(
    `${summary.tool_calls} tool calls, ${summary.tool_failures} failed (a result fails by upstream Hermes's rule: an error field, success false, or text starting with "error:").`,
    '',
    table(
      ['tool', 'calls', 'success', 'failure', 'success rate'],
      rows.map(([name, s]) => [name, String(s.count), String(s.success), String(s.failure), `${s.success_rate}%`]),
    ),
    '',
  );
  return lines;
}

function reasoning(summary: StatisticsSummary): string[] {
  const r = summary.reasoning_statistics;
  const share = r.total_assistant_turns === 0 ? 0 : Math.round((r.turns_with_reasoning / r.total_assistant_turns) * 10000) / 100;
  return [
    '## Reasoning',
    '',
    table(
      ['', 'turns'],
      [
        ['assistant turns', String(r.total_assistant_turns)],
        ['with reasoning', `${r.turns_with_reasoning} (${share}%)`],
        ['without reasoning', String(r.turns_without_reasoning)],
      ],
    ),
    '',
  ];
}

function filters(facts: CardFacts): string[] {
  const discarded = Object.entries(facts.summary.discarded);
  const stageRows = facts.stages.flatMap((stage) =>
    stage.counters.filter(([name]) => /^(dropped|kept|groups_dropped)/.test(name)).map(([name, n]) => [stage.command, name, String(n)]),
  );
  if (discarded.length === 0 && stageRows.length === 0)
    return ['## Filters and drops', '', 'No drop was recorded in the inputs (no tombstones; no --stage-stats given).', ''];
  const lines = ['## Filters and drops', ''];
  if (discarded.length > 0) {
    lines.push(
      'Prompts discarded during generation (tombstone rows, by reason):',
      '',
      table(
        ['reason', 'prompts'],
        discarded.map(([reason, n]) => [reason, String(n)]),
      ),
      '',
    );
  }
  if (stageRows.length > 0) lines.push('Pipeline stages (their --stats-out counters):', '', table(['stage', 'counter', 'count'], stageRows), '');
  return lines;
}

function compression(facts: CardFacts): string[] {
  const c = facts.compression;
  const statuses = Object.entries(c.byStatus);
  if (statuses.every(([status]) => status === 'none')) return ['## Compression', '', 'No record went through hermes-compress.', ''];
  const lines = [
    '## Compression',
    '',
    table(
      ['status', 'records'],
      statuses.map(([status, n]) => [status, String(n)]),
    ),
    '',
  ];
  const strategies = Object.entries(c.byStrategy);
  if (strategies.length > 0) {
    lines.push(
      table(
        ['strategy', 'records'],
        strategies.map(([name, n]) => [name, String(n)]),
      ),
      '',
    );
  }
  if (c.counted > 0) lines.push(`Tokens over the ${c.counted} records counted: ${c.tokensBefore} before, ${c.tokensAfter} after.`, '');
  return lines;
}

function generation(facts: CardFacts): string[] {
  if (facts.runs.length === 0) return [];
  const lines = ['## Generation settings', '', "From each run directory's run.json (credentials, URLs and the key's fingerprint are never shown).", ''];
  for (const run of facts.runs) {
    lines.push(
      `### ${run.run}`,
      '',
      table(
        ['setting', 'value'],
        run.settings.map(([name, value]) => [name, `\`${value}\``]),
      ),
      '',
    );
  }
  return lines;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  return [`| ${head.map(cell).join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
}

/** A YAML scalar: plain when safe, else double-quoted JSON (valid YAML). */
function yamlString(text: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9 ._/+-]*$/.test(text) && !/^(true|false|null|yes|no|on|off)$/i.test(text) ? text : JSON.stringify(text);
}
