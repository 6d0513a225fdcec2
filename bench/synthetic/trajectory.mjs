// One synthetic Hermes trajectory record (docs/record-format.md#trajectories), built the way upstream's
// converter builds it: the fixed function-calling system template with the offered tools, <think>
// normalisation (docs/rules.md#think-blocks), <tool_call>/<tool_response> blocks in Python json.dumps style, tool_stats
// counted from the calls with upstream's success rule (docs/rules.md#tool-success) and normalised over the whole registry.
import { readFileSync } from 'node:fs';
import { createRng, rngFor } from './random.mjs';
import { code, commandOutput, COMMANDS, filePath, nonAscii, paragraph, prose, sentence, snapshot, url, webPage, words } from './text.mjs';

const registry = JSON.parse(readFileSync(new URL('../../packages/core/registry/tools.json', import.meta.url), 'utf8'));
const ALL_TOOLS = Object.keys(registry.tools).sort();

/** The share of records with each trait; the corpus summary reports what came out. */
export const MIX = {
  zeroReasoning: 0.05,
  hallucinatedTool: 0.02,
  maxIterations: 0.03,
  partial: 0.02,
  toolFailure: 0.03, // per tool call
};

const HALLUCINATED_NAMES = ['web_search_v2', 'read_files', 'browser_open', 'terminal_exec', 'file_search', 'python_exec'];
const MODELS = [
  'anthropic/claude-sonnet-4.6',
  'openai/gpt-5.1',
  'moonshotai/kimi-k2',
  'qwen/qwen3-235b-a22b',
  'nousresearch/hermes-4-405b',
  'deepseek/deepseek-v3.2',
];
const DISTRIBUTIONS = ['terminal_tasks', 'mixed_tasks', 'browser_tasks', 'terminal_only', 'terminal_web', 'development', 'research', 'browser_use'];
const MAX_ITERATIONS_MESSAGE =
  "You've reached the maximum number of tool-calling iterations allowed. Please provide a final response summarizing what you've found and accomplished so far, without calling any more tools.";
const MIN_BYTES = 5 * 1024;
const MAX_BYTES = 20 * 1024;
// tool_stats and tool_error_counts over the whole registry, and the other fixed fields.
const FIXED_CHARS = 4700;
const FINAL_ANSWER_CHARS = 1600;

const SYSTEM_HEAD =
  "You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags. You may call one or more functions to assist with the user query. If available tools are not relevant in assisting with user query, just respond in natural conversational language. Don't make assumptions about what values to plug into functions. After calling & executing the functions, you will be provided with function results within <tool_response> </tool_response> XML tags. Here are the available tools:\n<tools>\n";
const SYSTEM_TAIL =
  "\n</tools>\nFor each function call return a JSON object, with the following pydantic model json schema for each:\n{'title': 'FunctionCall', 'type': 'object', 'properties': {'name': {'title': 'Name', 'type': 'string'}, 'arguments': {'title': 'Arguments', 'type': 'object'}}, 'required': ['name', 'arguments']}\nEach function call should be enclosed within <tool_call> </tool_call> XML tags.\nExample:\n<tool_call>\n{'name': <function-name>,'arguments': <args-dict>}\n</tool_call>";

const PROMPTS = [
  (rng) => `Create ${filePath(rng)} that ${words(rng, rng.int(4, 9))}, run it, and tell me the output.`,
  (rng) => `Find all TODO comments in the ${rng.pick(['src', 'lib', 'app'])} directory and summarize them by file.`,
  (rng) => `Search the web for ${words(rng, rng.int(2, 5))} and write a short summary with sources to ${filePath(rng)}.`,
  (rng) => `The test suite fails with "${sentence(rng, 4, 9)}". Debug it and fix the code so all tests pass.`,
  (rng) => `Go to ${url(rng)} and extract ${words(rng, rng.int(2, 5))}. Give me the results as a table.`,
  (rng) => `Set up a Python virtual environment, install the requirements and run the ${rng.pick(['linter', 'tests', 'benchmarks'])}. ${sentence(rng)}`,
  (rng) => `${paragraph(rng, 1, 3)} Can you look into it and report back what you find?`,
  (rng) => `Refactor ${filePath(rng)} so that ${words(rng, rng.int(4, 10))}. Keep the public API unchanged.`,
];

// Parameters of the tools the synthetic model calls most; every other tool gets one generic parameter.
const PARAMETERS = {
  terminal: [
    ['command', 'string'],
    ['background', 'boolean'],
    ['timeout', 'integer'],
  ],
  process: [
    ['action', 'string'],
    ['session_id', 'string'],
  ],
  read_file: [
    ['path', 'string'],
    ['offset', 'integer'],
    ['limit', 'integer'],
  ],
  write_file: [
    ['path', 'string'],
    ['content', 'string'],
  ],
  patch: [
    ['mode', 'string'],
    ['path', 'string'],
    ['old_string', 'string'],
    ['new_string', 'string'],
  ],
  search_files: [
    ['pattern', 'string'],
    ['path', 'string'],
    ['file_glob', 'string'],
  ],
  web_search: [['query', 'string']],
  web_extract: [['urls', 'array']],
  browser_navigate: [['url', 'string']],
  browser_click: [['ref', 'string']],
  browser_type: [
    ['ref', 'string'],
    ['text', 'string'],
  ],
  browser_scroll: [['direction', 'string']],
  vision_analyze: [
    ['image_url', 'string'],
    ['question', 'string'],
  ],
  image_generate: [
    ['prompt', 'string'],
    ['aspect_ratio', 'string'],
  ],
  mixture_of_agents: [['user_prompt', 'string']],
  execute_code: [['code', 'string']],
};

/** Python's json.dumps with default separators (", " and ": "), as upstream embeds calls and results. */
function pyDumps(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pyDumps).join(', ')}]`;
  return `{${Object.keys(value)
    .map((k) => `${JSON.stringify(k)}: ${pyDumps(value[k])}`)
    .join(', ')}}`;
}

function toolDefinition(name) {
  const rng = rngFor(name);
  const params = PARAMETERS[name] ?? [['input', 'string']];
  const properties = {};
  for (const [param, type] of params) {
    properties[param] =
      type === 'array'
        ? { type: 'array', items: { type: 'string' }, description: sentence(rngFor(name + param), 3, 8) }
        : { type, description: sentence(rngFor(name + param), 3, 8) };
  }
  const description = `${sentence(rng, 8, 20)}${rng.chance(0.3) ? ` ${sentence(rng, 5, 12)}` : ''}`;
  return { name, description, parameters: { type: 'object', properties, required: [params[0][0]] }, required: null };
}

function toolsOfToolset(name, seen = new Set()) {
  if (seen.has(name)) return [];
  seen.add(name);
  const set = registry.toolsets?.[name];
  if (!set) return ALL_TOOLS.filter((t) => registry.tools[t].toolset === name && !registry.tools[t].renamed_to && !registry.tools[t].note);
  return [...set.tools, ...(set.includes ?? []).flatMap((inc) => toolsOfToolset(inc, seen))];
}

// Records with the same toolsets share one system turn, as in real data; build each once.
const systemTurns = new Map();
function systemFor(toolsets) {
  const key = toolsets.join(',');
  let entry = systemTurns.get(key);
  if (!entry) {
    const tools = [...new Set(toolsets.flatMap((t) => toolsOfToolset(t)))].sort();
    entry = { tools, value: SYSTEM_HEAD + pyDumps(tools.map(toolDefinition)) + SYSTEM_TAIL };
    systemTurns.set(key, entry);
  }
  return entry;
}

/** Upstream samples each toolset of a distribution independently by its percentage. */
function sampleToolsets(rng, distribution) {
  const entries = Object.entries(registry.distributions[distribution].toolsets);
  const chosen = entries.filter(([, percent]) => rng.next() * 100 < percent).map(([name]) => name);
  if (chosen.length > 0) return chosen;
  return [entries.reduce((best, e) => (e[1] > best[1] ? e : best))[0]];
}

// What each tool is called with and what it returns. `room` is the most characters a result may take.
const BEHAVIOURS = {
  terminal: (rng, room) => {
    const [command, kind] = rng.pick(COMMANDS);
    const long = room > 2500 && rng.chance(0.45);
    const output = commandOutput(rng, kind, long ? Math.min(rng.int(2000, 8000), room) : rng.int(60, Math.min(800, room)));
    return { args: { command }, content: { output, exit_code: kind === 'pytest' && output.includes('FAILED') ? 1 : 0, error: null } };
  },
  read_file: (rng, room) => {
    const lines = code(rng, Math.max(3, Math.floor(Math.min(rng.int(300, 5000), room) / 40))).split('\n');
    const content = lines.map((line, i) => `${String(i + 1).padStart(6)}|${line}`).join('\n');
    return { args: { path: filePath(rng) }, content: { content, total_lines: lines.length } };
  },
  write_file: (rng, room) => {
    const body = code(rng, Math.max(3, Math.floor(Math.min(rng.int(150, 1500), room) / 40)));
    return { args: { path: filePath(rng), content: `${body}\n` }, content: { bytes_written: Buffer.byteLength(body) + 1, dirs_created: rng.chance(0.1) } };
  },
  patch: (rng) => {
    const path = filePath(rng);
    const [before, after] = [code(rng, 3), code(rng, 3)];
    return {
      args: { mode: 'replace', path, old_string: before, new_string: after },
      content: {
        success: true,
        diff: `--- a/${path}\n+++ b/${path}\n@@ -1,3 +1,3 @@\n-${before.split('\n').join('\n-')}\n+${after.split('\n').join('\n+')}\n`,
      },
    };
  },
  search_files: (rng) => {
    const matches = Array.from({ length: rng.int(1, 12) }, () => ({ path: filePath(rng), line: rng.int(1, 900), content: sentence(rng, 3, 10) }));
    return { args: { pattern: words(rng, rng.int(1, 2)), path: '.' }, content: { matches, total_count: matches.length } };
  },
  web_search: (rng) => {
    const web = Array.from({ length: 5 }, () => ({ title: sentence(rng, 3, 8).slice(0, -1), url: url(rng), description: sentence(rng, 10, 25) }));
    return { args: { query: words(rng, rng.int(2, 6)) }, content: { success: true, data: { web } } };
  },
  web_extract: (rng, room) => {
    const target = url(rng);
    const content = webPage(rng, Math.min(rng.int(1500, 8000), room));
    return { args: { urls: [target] }, content: { results: [{ url: target, title: sentence(rng, 3, 8).slice(0, -1), content }] } };
  },
  browser_navigate: (rng, room) => {
    const target = url(rng);
    return {
      args: { url: target },
      content: { success: true, url: target, title: `${words(rng, 3)} ${nonAscii(rng)}`, snapshot: snapshot(rng, Math.min(rng.int(400, 4000), room)) },
    };
  },
  browser_snapshot: (rng, room) => ({ args: {}, content: { success: true, snapshot: snapshot(rng, Math.min(rng.int(800, 6000), room)) } }),
  browser_click: (rng) => ({ args: { ref: `e${rng.int(1, 80)}` }, content: { success: true, clicked: `e${rng.int(1, 80)}` } }),
  browser_type: (rng) => ({ args: { ref: `e${rng.int(1, 80)}`, text: words(rng, rng.int(1, 5)) }, content: { success: true } }),
  browser_scroll: (rng) => ({ args: { direction: rng.pick(['down', 'up']) }, content: { success: true } }),
  vision_analyze: (rng) => ({
    args: { image_url: `${url(rng)}.png`, question: sentence(rng, 5, 12) },
    content: { success: true, analysis: paragraph(rng, 2, 6) },
  }),
  image_generate: (rng) => ({
    args: { prompt: sentence(rng, 8, 20), aspect_ratio: rng.pick(['square', 'landscape']) },
    content: { success: true, image: `https://images.example.com/${rng.hex(24)}.png` },
  }),
  mixture_of_agents: (rng, room) => ({
    args: { user_prompt: sentence(rng, 10, 25) },
    content: { success: true, response: prose(rng, Math.min(rng.int(800, 4000), room)) },
  }),
  execute_code: (rng) => ({
    args: { code: code(rng, rng.int(4, 15)) },
    content: { status: 'success', output: commandOutput(rng, 'log', rng.int(80, 600)), duration_ms: rng.int(5, 9000) },
  }),
};

function genericBehaviour(rng) {
  return { args: { input: sentence(rng, 3, 10) }, content: { success: true, result: sentence(rng, 5, 20) } };
}

function failureContent(rng, name) {
  return rng.weighted([
    [{ error: `${name} failed: ${sentence(rng, 4, 10)}` }, 3],
    [{ output: '', exit_code: -1, error: 'Command timed out after 180 seconds' }, 1],
    [{ success: false, error: sentence(rng, 4, 10) }, 1],
    [`Error: ${sentence(rng, 4, 10)}`, 1],
  ]);
}

/** Upstream's success rule: parse errors and non-dicts succeed unless the text starts with "error:". */
function isFailure(content) {
  if (typeof content === 'string') return content.trim() === '' || content.trim().toLowerCase().startsWith('error:');
  if (content === null || Array.isArray(content)) return false;
  return (
    (content.error ?? null) !== null ||
    (typeof content.content === 'object' && content.content !== null && (content.content.error ?? null) !== null) ||
    content.success === false
  );
}

const CALL_WEIGHTS = {
  terminal: 8,
  read_file: 4,
  write_file: 3,
  patch: 2,
  search_files: 2,
  web_search: 4,
  web_extract: 3,
  browser_navigate: 3,
  browser_snapshot: 2,
  browser_click: 2,
  browser_type: 1,
};

function reasoningText(rng) {
  return rng.chance(0.1) ? prose(rng, rng.int(600, 1500)) : paragraph(rng, 1, 4);
}

/**
 * A gpt value per upstream's think rules: native reasoning first, then content (scratchpad tags converted to <think>),
 * then the calls; an empty think block when none is present.
 * `style` is how this turn reasons; 'rawScratchpad' keeps unconverted <REASONING_SCRATCHPAD> tags, as
 * converters that skip upstream's conversion leave them.
 */
function gptValue(rng, style, content, calls) {
  let value = style === 'native' || style === 'nativeAndScratchpad' ? `<think>\n${reasoningText(rng)}\n</think>\n` : '';
  if (style === 'scratchpad' || style === 'nativeAndScratchpad') content = `<think>\n${paragraph(rng, 1, 3)}\n</think>\n${content}`;
  if (style === 'rawScratchpad') content = `<REASONING_SCRATCHPAD>\n${paragraph(rng, 1, 3)}\n</REASONING_SCRATCHPAD>\n${content}`;
  if (calls) {
    if (content.trim()) value += `${content}\n`;
    for (const call of calls) value += `<tool_call>\n${pyDumps({ name: call.name, arguments: call.args })}\n</tool_call>\n`;
  } else {
    value += content;
  }
  if (!value.includes('<think>')) value = `<think>\n</think>\n${value}`;
  return calls ? value.trimEnd() : value.trim();
}

function isoTimestamp(ms, micros) {
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}`;
}

/**
 * Record `index` of the corpus with seed `seed` as one JSONL line (no newline), and the traits it was
 * given (for the corpus summary). Always between 5 and 20 KiB: an attempt that lands outside is redrawn.
 */
export function makeTrajectory(seed, index) {
  for (let attempt = 0; ; attempt++) {
    const { record, traits } = drawTrajectory(createRng(seed, index, attempt), seed, index);
    const line = JSON.stringify(record);
    const bytes = Buffer.byteLength(line);
    if (bytes >= MIN_BYTES && bytes <= MAX_BYTES) return { record, line, bytes, traits };
  }
}

function drawTrajectory(rng, seed, index) {
  const toolsetsUsed = sampleToolsets(rng, rng.pick(DISTRIBUTIONS));
  const system = systemFor(toolsetsUsed);
  const traits = {
    zeroReasoning: rng.chance(MIX.zeroReasoning),
    hallucinatedTool: rng.chance(MIX.hallucinatedTool),
    ending: rng.weighted([
      ['maxIterations', MIX.maxIterations],
      ['partial', MIX.partial],
      ['completed', 1 - MIX.maxIterations - MIX.partial],
    ]),
    toolFailures: 0,
  };
  const human = rng.pick(PROMPTS)(rng);
  const conversations = [
    { from: 'system', value: system.value },
    { from: 'human', value: human },
  ];
  const stats = new Map();
  const callable = system.tools.map((name) => [name, CALL_WEIGHTS[name] ?? 0.3]);
  const reasoningStyle = () =>
    traits.zeroReasoning
      ? 'none'
      : rng.weighted([
          ['native', 62],
          ['none', 25],
          ['scratchpad', 5],
          ['nativeAndScratchpad', 3],
          ['rawScratchpad', 5],
        ]);

  let chars = FIXED_CHARS + JSON.stringify(system.value).length + JSON.stringify(human).length;
  // Skewed towards the small end, as real runs are: most tasks take a few steps.
  const smallest = chars + FINAL_ANSWER_CHARS + 800;
  const target = smallest + Math.max(0, MAX_BYTES - 400 - smallest) * rng.next() ** 2;
  const hallucinateAt = traits.hallucinatedTool ? rng.int(0, 2) : -1;
  let steps = 0;
  let reasoned = false;
  while (steps === 0 || chars < target - FINAL_ANSWER_CHARS - 300) {
    const calls = [];
    const callCount = rng.weighted([
      [1, 80],
      [2, 15],
      [3, 5],
    ]);
    for (let k = 0; k < callCount; k++) {
      const name = rng.weighted(callable);
      const room = Math.max(200, Math.floor((target - FINAL_ANSWER_CHARS - chars) / 1.3 / callCount));
      const behaviour = (BEHAVIOURS[name] ?? genericBehaviour)(rng, room);
      if (rng.chance(MIX.toolFailure)) behaviour.content = failureContent(rng, name);
      calls.push({ name, ...behaviour });
    }
    if (steps === hallucinateAt) {
      const name = rng.pick(HALLUCINATED_NAMES);
      calls[0] = { name, args: calls[0].args, content: `Tool '${name}' does not exist. Available tools: ${system.tools.join(', ')}` };
    }
    let style = reasoningStyle();
    if (!traits.zeroReasoning && !reasoned && steps === 0 && style === 'none') style = 'native';
    reasoned ||= style !== 'none';
    const preface = rng.chance(0.4) ? sentence(rng, 5, 14) : '';
    const gpt = gptValue(rng, style, preface, calls);
    const tool = calls
      .map((call) => `<tool_response>\n${pyDumps({ tool_call_id: `call_${rng.hex(24)}`, name: call.name, content: call.content })}\n</tool_response>`)
      .join('\n');
    conversations.push({ from: 'gpt', value: gpt }, { from: 'tool', value: tool });
    chars += JSON.stringify(gpt).length + JSON.stringify(tool).length + 40;
    for (const call of calls) {
      const stat = stats.get(call.name) ?? { count: 0, success: 0, failure: 0 };
      stat.count += 1;
      if (isFailure(call.content)) {
        stat.failure += 1;
        traits.toolFailures += 1;
      } else {
        stat.success += 1;
      }
      stats.set(call.name, stat);
    }
    steps += 1;
  }

  let apiCalls = steps;
  if (traits.ending === 'maxIterations') {
    conversations.push({ from: 'human', value: MAX_ITERATIONS_MESSAGE }, { from: 'gpt', value: gptValue(rng, 'none', paragraph(rng, 3, 7), null) });
  } else if (traits.ending === 'partial') {
    apiCalls += 1; // the iteration that was cut off and rolled back
  } else {
    const answer = rng.chance(0.3) ? `${paragraph(rng, 2, 4)}\n\n\`\`\`python\n${code(rng, rng.int(4, 12))}\n\`\`\`` : paragraph(rng, 2, 6);
    conversations.push({ from: 'gpt', value: gptValue(rng, traits.zeroReasoning ? 'none' : 'native', answer, null) });
    apiCalls += 1 + (rng.chance(0.08) ? rng.int(1, 2) : 0);
  }

  const toolStats = {};
  const toolErrorCounts = {};
  for (const name of [...new Set([...ALL_TOOLS, ...stats.keys()])].sort()) {
    const stat = stats.get(name) ?? { count: 0, success: 0, failure: 0 };
    toolStats[name] = stat;
    toolErrorCounts[name] = stat.failure;
  }
  const promptTokens = Math.round((apiCalls * chars) / 8);
  const completionTokens = rng.int(200, 4000);
  const record = {
    id: `bench-s${seed}-${index}`,
    prompt_index: index,
    conversations,
    metadata: {
      batch_num: Math.floor(index / 20),
      timestamp: isoTimestamp(Date.UTC(2026, 0, 15, 8) + index * 2700 + rng.int(0, 2000), rng.int(1, 999999)),
      model: rng.pick(MODELS),
      endpoint_host: 'openrouter.ai',
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      wall_time_s: rng.int(20, 9000) / 10,
      unknown_tools: [...stats.keys()].filter((name) => !(name in registry.tools)),
    },
    completed: traits.ending === 'completed',
    partial: traits.ending === 'partial',
    api_calls: apiCalls,
    toolsets_used: toolsetsUsed,
    tool_stats: toolStats,
    tool_error_counts: toolErrorCounts,
  };
  return { record, traits };
}
