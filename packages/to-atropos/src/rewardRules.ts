// Reward rules (docs/rules.md#reward-rules): each rule is a detector over one trajectory and a weight; a
// trajectory's score is the sum of the weights of the rules that fire (each fires at most once).
// The detectors read only what the record holds, so the score is a heuristic of the trajectory's own
// signals, not a verified result: a task verifier's rewards belong in --scores.
import {
  isPlainObject,
  offeredToolNames,
  optionFileError,
  loadOptionFile,
  parseGptValue,
  parseToolValue,
  toolCallSucceeded,
  type ParsedToolCall,
  type ParsedToolResponse,
  type Trajectory,
} from '@hermes-datagen/core';

export const RULE_NAMES = ['task_success', 'code_runs_ok', 'invalid_tool_call', 'loop_detected', 'timeout'] as const;
export type RuleName = (typeof RULE_NAMES)[number];
export type RuleWeights = Partial<Record<RuleName, number>>;

/** The product owner's rules (docs/rules.md#reward-rules). */
export const DEFAULT_RULES: Readonly<Record<RuleName, number>> = {
  task_success: 20,
  code_runs_ok: 10,
  invalid_tool_call: -5,
  loop_detected: -10,
  timeout: -15,
};

/** The requirements' min_reward_threshold, the default --min-score under --reward-rules. */
export const DEFAULT_MIN_REWARD = 5;

/** Tools whose calls run code, for code_runs_ok. */
export const CODE_TOOLS: ReadonlySet<string> = new Set(['terminal', 'execute_code']);

/** Identical tool calls in this many gpt turns in a row are a loop. */
export const LOOP_REPEATS = 3;

export const RULES_HELP = `Reward rules (--reward-rules default, or a JSON/YAML file mapping rule names to weights, e.g.
{"task_success": 20, "timeout": -15}; rules left out are off). A rule fires at most once per trajectory;
the score is the sum of the weights that fired. Default weights in brackets.
  task_success      [+20]  "completed" is true, "partial" is false, and the last turn is a gpt answer:
                           text outside <think>, and no tool call
  code_runs_ok      [+10]  a code-running tool (terminal, execute_code) was called and its last result
                           succeeded: not an error by upstream's rule, and exit_code 0 when it has one
  invalid_tool_call  [-5]  a <tool_call> block is not {"name": str, "arguments": object} JSON, is never
                           closed, or names a tool the system turn does not offer
  loop_detected     [-10]  ${LOOP_REPEATS} gpt turns in a row make the same tool calls (same names and arguments)
  timeout           [-15]  a tool result reports a timeout (an error saying "timed out"/"timeout", or
                           exit_code 124), or the run stopped before completing ("completed": false: the
                           turn limit was reached)`;

export interface RuleOutcome {
  score: number;
  fired: RuleName[];
}

export function applyRules(record: Trajectory, weights: RuleWeights): RuleOutcome {
  const view = readConversation(record);
  const fired = RULE_NAMES.filter((name) => weights[name] !== undefined && DETECTORS[name](record, view));
  return { score: fired.reduce((sum, name) => sum + (weights[name] ?? 0), 0), fired };
}

/** --reward-rules default | FILE. */
export function loadRewardRules(value: string, cwd: string): RuleWeights {
  if (value === 'default') return { ...DEFAULT_RULES };
  const file = { option: '--reward-rules', path: value, cwd };
  const parsed = loadOptionFile(file, 'json-or-yaml');
  if (!isPlainObject(parsed)) throw optionFileError(file, 'expected an object mapping rule names to weights');
  const weights: RuleWeights = {};
  for (const [name, weight] of Object.entries(parsed)) {
    if (!(RULE_NAMES as readonly string[]).includes(name)) throw optionFileError(file, `unknown rule "${name}" (known: ${RULE_NAMES.join(', ')})`);
    if (typeof weight !== 'number' || !Number.isFinite(weight)) throw optionFileError(file, `the weight of "${name}" must be a number`);
    weights[name as RuleName] = weight;
  }
  if (Object.keys(weights).length === 0) throw optionFileError(file, 'no rules given');
  return weights;
}

interface GptStep {
  calls: ParsedToolCall[];
  text: string;
  /** The <tool_response> blocks of the tool turn right after it, paired with calls by position. */
  results: ParsedToolResponse[];
}

interface ConversationView {
  steps: GptStep[];
  offered: string[] | null;
  lastFrom: string | undefined;
}

function readConversation(record: Trajectory): ConversationView {
  const turns = record.conversations;
  const steps: GptStep[] = [];
  for (const [index, turn] of turns.entries()) {
    if (turn.from !== 'gpt') continue;
    const parsed = parseGptValue(turn.value);
    const next = turns[index + 1];
    steps.push({ calls: parsed.toolCalls, text: parsed.text, results: next?.from === 'tool' ? parseToolValue(next.value) : [] });
  }
  const systemTurn = turns.find((turn) => turn.from === 'system');
  return { steps, offered: systemTurn ? offeredToolNames(systemTurn.value) : null, lastFrom: turns.at(-1)?.from };
}

type Detector = (record: Trajectory, view: ConversationView) => boolean;

const DETECTORS: Record<RuleName, Detector> = {
  task_success: (record, { steps, lastFrom }) => {
    const last = steps.at(-1);
    return record.completed && !record.partial && lastFrom === 'gpt' && last !== undefined && last.calls.length === 0 && last.text !== '';
  },
  code_runs_ok: (_record, { steps }) => {
    let last: unknown;
    let ran = false;
    for (const step of steps) {
      step.calls.forEach((call, k) => {
        if (call.name === null || !CODE_TOOLS.has(call.name)) return;
        ran = true;
        last = step.results[k]?.content ?? null;
      });
    }
    return ran && toolCallSucceeded(last) && exitCodeOf(last) !== 'nonzero';
  },
  invalid_tool_call: (_record, { steps, offered }) =>
    steps.some((step) => step.calls.some((call) => call.error !== undefined || (offered !== null && call.name !== null && !offered.includes(call.name)))),
  loop_detected: (_record, { steps }) => {
    let run = 0;
    let previous = '';
    for (const step of steps) {
      const signature = step.calls.length === 0 ? '' : JSON.stringify(step.calls.map((call) => [call.name, call.arguments]));
      run = signature !== '' && signature === previous ? run + 1 : 1;
      previous = signature;
      if (signature !== '' && run >= LOOP_REPEATS) return true;
    }
    return false;
  },
  timeout: (record, { steps }) => !record.completed || steps.some((step) => step.results.some((result) => reportsTimeout(result.content))),
};

function resultObject(content: unknown): Record<string, unknown> | null {
  if (isPlainObject(content)) return content;
  if (typeof content !== 'string') return null;
  try {
    const parsed = JSON.parse(content) as unknown;
    return isPlainObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function exitCodeOf(content: unknown): 'zero' | 'nonzero' | 'none' {
  const code = resultObject(content)?.['exit_code'];
  if (typeof code !== 'number') return 'none';
  return code === 0 ? 'zero' : 'nonzero';
}

/** coreutils timeout's exit status. */
const TIMEOUT_EXIT_CODE = 124;

function reportsTimeout(content: unknown): boolean {
  const object = resultObject(content);
  if (object === null) return typeof content === 'string' && /timed out|timeout/i.test(content) && content.trim().toLowerCase().startsWith('error');
  if (object['exit_code'] === TIMEOUT_EXIT_CODE) return true;
  const error = object['error'] ?? (isPlainObject(object['content']) ? object['content']['error'] : undefined);
  return typeof error === 'string' && /timed out|timeout/i.test(error);
}
