// The compression settings: defaults, then a --config file (upstream's trajectory_compression.yaml
// sections and keys, docs/compression.md#configuration-file, plus this project's), then flags. Unknown keys
// are warned about (a typo should not pass silently), a wrong type is a usage error naming the key.
import { createHash } from 'node:crypto';
import {
  DEFAULT_TOKEN_ENCODING,
  isPlainObject,
  loadOptionFile,
  optionFileError,
  TOKEN_ENCODINGS,
  UsageError,
  type OptionFile,
  type TokenEncoding,
} from '@hermes-datagen/core';

export const REDUCERS = ['repeated_observations', 'redundant_tool_outputs', 'intermediate_thoughts'] as const;
export type Reducer = (typeof REDUCERS)[number];
export const STRATEGIES = ['key_decision_extract', 'llm', 'placeholder'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Upstream's default notice (trajectory_compressor.py CompressionConfig). */
export const DEFAULT_NOTICE = '\n\nSome of your previous tool responses may be summarized to preserve context.';

export interface CompressConfig {
  encoding: TokenEncoding;
  /** --tokenizer: a tiktoken ranks file, or a Hugging Face tokenizer's directory or package; relative to cwd. */
  tokenizerFile: string | undefined;
  targetMaxTokens: number;
  summaryTargetTokens: number;
  /** Ratio mode: target = min(maxTokensAfter, max(minTokensAfter, ceil(ratio × N))). */
  ratio: number | undefined;
  minTokensAfter: number | undefined;
  maxTokensAfter: number | undefined;
  forceAboveTokens: number | undefined;
  protectFirstSystem: boolean;
  protectFirstHuman: boolean;
  protectFirstGpt: boolean;
  protectFirstTool: boolean;
  protectLast: number;
  protectFinalAction: boolean;
  protectErrors: boolean;
  reducers: Reducer[];
  dedupWindow: number;
  toolOutputMaxTokens: number;
  strategy: Strategy;
  temperature: number;
  maxRetries: number;
  /** Seconds: the base of the backoff between summariser attempts. */
  retryDelay: number;
  addNotice: boolean;
  noticeText: string;
  perRecordMetrics: boolean;
  saveOverLimit: boolean;
  concurrency: number;
  /** Seconds per record (llm strategy). */
  timeout: number;
  metricsFile: string | undefined;
}

export const DEFAULTS: CompressConfig = {
  encoding: DEFAULT_TOKEN_ENCODING,
  tokenizerFile: undefined,
  targetMaxTokens: 15250,
  summaryTargetTokens: 750,
  ratio: undefined,
  minTokensAfter: undefined,
  maxTokensAfter: undefined,
  forceAboveTokens: undefined,
  protectFirstSystem: true,
  protectFirstHuman: true,
  protectFirstGpt: true,
  protectFirstTool: true,
  protectLast: 4,
  protectFinalAction: true,
  protectErrors: true,
  reducers: [...REDUCERS],
  dedupWindow: 5,
  toolOutputMaxTokens: 1000,
  strategy: 'key_decision_extract',
  temperature: 0.3,
  maxRetries: 3,
  retryDelay: 2,
  addNotice: true,
  noticeText: DEFAULT_NOTICE,
  perRecordMetrics: true,
  saveOverLimit: true,
  concurrency: 16,
  timeout: 300,
  metricsFile: undefined,
};

type Kind = 'int' | 'number' | 'ratio' | 'bool' | 'string' | 'encoding' | 'strategy' | 'reducers';

interface KeySpec {
  readonly field: keyof CompressConfig;
  readonly kind: Kind;
}

/** section.key → setting. Upstream's keys keep upstream's names; the sections budget/reducers/strategy are ours. */
const KEYS: Record<string, KeySpec> = {
  'tokenizer.encoding': { field: 'encoding', kind: 'encoding' },
  'tokenizer.file': { field: 'tokenizerFile', kind: 'string' },
  'compression.target_max_tokens': { field: 'targetMaxTokens', kind: 'int' },
  'compression.summary_target_tokens': { field: 'summaryTargetTokens', kind: 'int' },
  'budget.ratio': { field: 'ratio', kind: 'ratio' },
  'budget.min_tokens_after': { field: 'minTokensAfter', kind: 'int' },
  'budget.max_tokens_after': { field: 'maxTokensAfter', kind: 'int' },
  'budget.force_above_tokens': { field: 'forceAboveTokens', kind: 'int' },
  'protected_turns.first_system': { field: 'protectFirstSystem', kind: 'bool' },
  'protected_turns.first_human': { field: 'protectFirstHuman', kind: 'bool' },
  'protected_turns.first_gpt': { field: 'protectFirstGpt', kind: 'bool' },
  'protected_turns.first_tool': { field: 'protectFirstTool', kind: 'bool' },
  'protected_turns.last_n_turns': { field: 'protectLast', kind: 'int' },
  'protected_turns.final_action': { field: 'protectFinalAction', kind: 'bool' },
  'protected_turns.error_results': { field: 'protectErrors', kind: 'bool' },
  'reducers.enabled': { field: 'reducers', kind: 'reducers' },
  'reducers.dedup_window': { field: 'dedupWindow', kind: 'int' },
  'reducers.tool_output_max_tokens': { field: 'toolOutputMaxTokens', kind: 'int' },
  'strategy.name': { field: 'strategy', kind: 'strategy' },
  'summarization.temperature': { field: 'temperature', kind: 'number' },
  'summarization.max_retries': { field: 'maxRetries', kind: 'int' },
  'summarization.retry_delay': { field: 'retryDelay', kind: 'number' },
  'output.add_summary_notice': { field: 'addNotice', kind: 'bool' },
  'output.summary_notice_text': { field: 'noticeText', kind: 'string' },
  'metrics.per_trajectory': { field: 'perRecordMetrics', kind: 'bool' },
  'metrics.output_file': { field: 'metricsFile', kind: 'string' },
  'processing.save_over_limit': { field: 'saveOverLimit', kind: 'bool' },
  'processing.max_concurrent_requests': { field: 'concurrency', kind: 'int' },
  'processing.per_trajectory_timeout': { field: 'timeout', kind: 'number' },
};

/** Upstream keys read but not used here, and why (said once as a warning when a file sets them). */
const IGNORED: Record<string, string> = {
  'tokenizer.name': 'no tokenizer is downloaded: give a local Hugging Face tokenizer as tokenizer.file (a directory or an installed package), or --tokenizer',
  'tokenizer.trust_remote_code': 'no remote tokenizer code is loaded',
  'summarization.model': 'the summariser uses the one endpoint of every hermes-* CLI (--model, $HERMES_MODEL, default_model)',
  'summarization.base_url': 'the summariser uses the one endpoint of every hermes-* CLI (--base-url, $HERMES_BASE_URL, providers:)',
  'summarization.api_key_env': 'the summariser uses the one endpoint of every hermes-* CLI (--api-key-env, providers:)',
  'output.output_suffix': 'hermes-compress writes to stdout or -o',
  'processing.num_workers': 'upstream never used it either; see --concurrency',
  'metrics.enabled': 'the metrics file is written when metrics.output_file or --metrics-file names one',
};

/** Top-level keys of the same file that other parts read (the endpoint's providers). */
const ENDPOINT_KEYS = new Set(['providers', 'default_model', 'auth_mode']);

/** Settings from a --config file; unknown keys go to `warn`. */
export function readConfigFile(file: OptionFile, warn: (message: string) => void): Partial<CompressConfig> {
  const root = loadOptionFile(file, 'json-or-yaml') ?? {};
  if (!isPlainObject(root)) throw optionFileError(file, 'expected a mapping of sections (compression:, budget:, protected_turns:, ...)');
  const settings: Partial<CompressConfig> = {};
  for (const [section, body] of Object.entries(root)) {
    if (ENDPOINT_KEYS.has(section)) continue;
    if (body === null) continue;
    if (!isPlainObject(body)) {
      if (isKnownSection(section)) throw optionFileError(file, 'expected a mapping', { at: section });
      warn(`${file.option} ${file.path}: unknown key ${section} (ignored)`);
      continue;
    }
    for (const [key, value] of Object.entries(body)) {
      const name = `${section}.${key}`;
      const spec = KEYS[name];
      if (spec) {
        if (value === null) continue;
        const problem = checkKind(spec.kind, value);
        if (problem) throw optionFileError(file, problem, { at: name });
        (settings as Record<string, unknown>)[spec.field] = value;
      } else if (name === 'processing.skip_under_target') {
        if (value === false)
          warn(`${file.option} ${file.path}: processing.skip_under_target: false is not supported: a record at or under its target is always passed through`);
      } else if (IGNORED[name] !== undefined) {
        warn(`${file.option} ${file.path}: ${name} is not used: ${IGNORED[name]}`);
      } else {
        warn(`${file.option} ${file.path}: unknown key ${name} (ignored)`);
      }
    }
  }
  return settings;
}

function isKnownSection(section: string): boolean {
  return Object.keys(KEYS).some((k) => k.startsWith(`${section}.`)) || Object.keys(IGNORED).some((k) => k.startsWith(`${section}.`));
}

function checkKind(kind: Kind, value: unknown): string | undefined {
  switch (kind) {
    case 'int':
      return Number.isInteger(value) && (value as number) >= 0 ? undefined : `expected a whole number >= 0, got ${show(value)}`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? undefined : `expected a number >= 0, got ${show(value)}`;
    case 'ratio':
      return typeof value === 'number' && value > 0 && value <= 1 ? undefined : `expected a number in (0, 1], got ${show(value)}`;
    case 'bool':
      return typeof value === 'boolean' ? undefined : `expected true or false, got ${show(value)}`;
    case 'string':
      return typeof value === 'string' ? undefined : `expected a string, got ${show(value)}`;
    case 'encoding':
      return (TOKEN_ENCODINGS as readonly unknown[]).includes(value) ? undefined : `expected one of ${TOKEN_ENCODINGS.join(', ')}, got ${show(value)}`;
    case 'strategy':
      return (STRATEGIES as readonly unknown[]).includes(value) ? undefined : `expected one of ${STRATEGIES.join(', ')}, got ${show(value)}`;
    case 'reducers':
      return Array.isArray(value) && value.every((r) => (REDUCERS as readonly unknown[]).includes(r))
        ? undefined
        : `expected a list of ${REDUCERS.join(', ')}, got ${show(value)}`;
  }
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** --reducers a,b (or none) as a list; a usage error names an unknown one. */
export function parseReducerList(list: string): Reducer[] {
  if (list.trim() === 'none' || list.trim() === '') return [];
  const names = list.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(REDUCERS as readonly string[]).includes(n));
  if (unknown.length > 0) throw new UsageError(`--reducers: unknown reducer ${unknown.join(', ')}; the reducers are ${REDUCERS.join(', ')} (or none)`);
  return names as Reducer[];
}

/** Checks that hold between settings; a usage error otherwise. */
export function checkConfig(config: CompressConfig): CompressConfig {
  const fail = (message: string): never => {
    throw new UsageError(message);
  };
  for (const [name, value] of [
    ['--target-max-tokens', config.targetMaxTokens],
    ['--summary-target-tokens', config.summaryTargetTokens],
    ['--protect-last', config.protectLast],
    ['--dedup-window', config.dedupWindow],
    ['--tool-output-max-tokens', config.toolOutputMaxTokens],
    ['--max-retries', config.maxRetries],
    ['--min-tokens-after', config.minTokensAfter],
    ['--max-tokens-after', config.maxTokensAfter],
    ['--force-above-tokens', config.forceAboveTokens],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) fail(`${name} takes a whole number >= 0 (got ${value})`);
  }
  if (config.ratio !== undefined && !(config.ratio > 0 && config.ratio <= 1)) fail(`--ratio takes a number in (0, 1] (got ${config.ratio})`);
  if (!(Number.isInteger(config.concurrency) && config.concurrency >= 1)) fail(`--concurrency takes a whole number >= 1 (got ${config.concurrency})`);
  if (!(config.timeout > 0)) fail(`--timeout takes a number of seconds > 0 (got ${config.timeout})`);
  if (config.minTokensAfter !== undefined && config.maxTokensAfter !== undefined && config.minTokensAfter > config.maxTokensAfter) {
    fail(`--min-tokens-after (${config.minTokensAfter}) is above --max-tokens-after (${config.maxTokensAfter})`);
  }
  if (config.maxRetries < 1 && config.strategy === 'llm') fail('--max-retries must be at least 1 with --strategy llm (it counts attempts, as upstream)');
  return config;
}

/**
 * A short hash of everything that decides the output, so records compressed under different settings
 * can be told apart. Paths are hashed as given; what does not change the output (concurrency, the
 * metrics file) is left out.
 */
export function configHash(config: CompressConfig, model: string | undefined): string {
  const { concurrency: _c, metricsFile: _m, timeout: _t, ...decisive } = config;
  return createHash('sha256')
    .update(JSON.stringify({ ...decisive, model: model ?? null }))
    .digest('hex')
    .slice(0, 16);
}
