// The rule-based policy: answers prompts no script sequence matches with plausible multi-step tool use.
// It plans a fixed series of turns from the prompt and the tools offered (only those), finds the first
// turn the history does not hold yet, and ends with an answer that quotes the tool results it was given.
// Everything is a function of the request, so the same request always gets the same reply.
import { firstUserText, offeredToolNames, stepOf, type ChatRequest } from './request.js';
import type { ScriptedReply } from './script.js';
import { toolResults, type ToolResult } from './tool-results.js';

interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

interface PlannedTurn {
  /** The todo item this turn stands for. */
  task: string;
  reasoning: string;
  content: string | null;
  calls: PlannedCall[];
}

interface Program {
  language: 'python' | 'shell';
  file: string;
  runCommand: string;
  source: string;
  draftLine: string;
  finalLine: string;
}

/** Turns the history may hold beyond the plan (a fault's stray call, a retried turn) before the policy answers anyway. */
const EXTRA_TURNS = 2;
const SHORT_PROMPT_CHARS = 80;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function programFor(prompt: string, language: Program['language'] = /python/i.test(prompt) ? 'python' : 'shell'): Program {
  const task = oneLine(prompt, 200);
  if (language === 'python') {
    return {
      language: 'python',
      file: 'solution.py',
      runCommand: 'python3 solution.py',
      draftLine: 'LABEL = "draft"',
      finalLine: 'LABEL = "final"',
      source: [
        '# solution.py: a first pass at the task below.',
        'import os',
        '',
        'LABEL = "draft"',
        // A JSON string literal is also a valid Python string literal.
        `TASK = ${JSON.stringify(task)}`,
        '',
        'print("label:", LABEL)',
        'print("task:", TASK)',
        'print("words in task:", len(TASK.split()))',
        'print("files here:", len(os.listdir(".")))',
        '',
      ].join('\n'),
    };
  }
  return {
    language: 'shell',
    file: 'solution.sh',
    runCommand: 'sh solution.sh',
    draftLine: 'label=draft',
    finalLine: 'label=final',
    source: [
      '#!/bin/sh',
      '# solution.sh: a first pass at the task below.',
      'set -e',
      'label=draft',
      `task=${shellQuote(task)}`,
      'echo "label: $label"',
      'echo "task: $task"',
      'echo "words in task: $(printf \'%s\\n\' "$task" | wc -w | tr -d \' \')"',
      'echo "files here: $(ls | wc -l | tr -d \' \')"',
      '',
    ].join('\n'),
  };
}

/** The first file name the prompt mentions (`notes.txt`, `src/app.py`), if any. */
function mentionedFile(prompt: string): string | undefined {
  return /(?:^|[\s'"`(])((?:\.{0,2}\/)?[\w-]+(?:\/[\w.-]+)*\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s'"`),:;!?]|\.(?:\s|$))/.exec(prompt)?.[1];
}

/** The longest word of the prompt, as something worth searching the workspace for. */
function keywordOf(prompt: string): string {
  const words = prompt.toLowerCase().match(/[a-z]{4,}/g) ?? [];
  return words.reduce((longest, word) => (word.length > longest.length ? word : longest), '') || 'todo';
}

function runTurnCalls(prompt: string, program: Program, tools: Set<string>, written: boolean): PlannedCall[] {
  if (tools.has('terminal')) {
    const command = written ? program.runCommand : program.language === 'python' ? `python3 - <<'EOF'\n${program.source}EOF` : program.source;
    return [{ name: 'terminal', arguments: { command } }];
  }
  // execute_code runs Python, whatever language the prompt asked for.
  if (tools.has('execute_code')) return [{ name: 'execute_code', arguments: { code: programFor(prompt, 'python').source } }];
  return [];
}

export function planTurns(prompt: string, offered: readonly string[]): PlannedTurn[] {
  const tools = new Set(offered);
  const program = programFor(prompt);
  const short = oneLine(prompt, SHORT_PROMPT_CHARS);
  const turns: PlannedTurn[] = [];
  if (tools.has('search_files')) {
    const pattern = keywordOf(prompt);
    turns.push({
      task: `Look for existing mentions of "${pattern}"`,
      reasoning: `Before writing anything I want to know whether the workspace already mentions "${pattern}".`,
      content: null,
      calls: [{ name: 'search_files', arguments: { pattern, path: '.' } }],
    });
  }
  const input = mentionedFile(prompt);
  if (tools.has('read_file') && input !== undefined) {
    turns.push({
      task: `Read ${input}`,
      reasoning: `The task mentions ${input}, so I should read it before doing anything else.`,
      content: `Let me read ${input} first.`,
      calls: [{ name: 'read_file', arguments: { path: input } }],
    });
  }
  const written = tools.has('write_file');
  if (written) {
    turns.push({
      task: `Write ${program.file}`,
      reasoning: `A small ${program.language} script is the quickest way to do this: "${short}". I'll write it to ${program.file}.`,
      content: `I'll write a ${program.language} script to ${program.file}.`,
      calls: [{ name: 'write_file', arguments: { path: program.file, content: program.source } }],
    });
    if (tools.has('patch')) {
      turns.push({
        task: `Mark ${program.file} as final`,
        reasoning: `The script still says ${program.draftLine}; it is ready, so I'll switch that to ${program.finalLine} before running it.`,
        content: null,
        calls: [{ name: 'patch', arguments: { mode: 'replace', path: program.file, old_string: program.draftLine, new_string: program.finalLine } }],
      });
    }
  }
  const checkCalls = [
    ...runTurnCalls(prompt, program, tools, written),
    ...(written && tools.has('read_file') ? [{ name: 'read_file', arguments: { path: program.file } }] : []),
  ];
  if (checkCalls.length > 0) {
    turns.push({
      task: 'Run it and check the result',
      reasoning: `Now I check the work: ${checkCalls.map((c) => c.name).join(' and ')}, then I can report what actually happened.`,
      content: 'Checking the result now.',
      calls: checkCalls,
    });
  }
  if (tools.has('todo') && turns.length > 0) {
    turns.unshift({
      task: 'Plan the work',
      reasoning: `The task: "${short}". I'll lay it out as ${turns.length} steps before starting.`,
      content: 'Here is my plan.',
      calls: [
        {
          name: 'todo',
          arguments: {
            todos: turns.map((turn, index) => ({ id: String(index + 1), content: turn.task, status: index === 0 ? 'in_progress' : 'pending' })),
            merge: false,
          },
        },
      ],
    });
  }
  return turns;
}

function describeResult(result: ToolResult): string {
  const head = `- ${result.name}${result.subject === '' ? '' : ` (${result.subject})`}${result.failed ? ' reported an error' : ''}:`;
  return [head, ...(result.lines.length > 0 ? result.lines : ['(no output)']).map((line) => `    ${line}`)].join('\n');
}

function finalAnswer(request: ChatRequest, prompt: string): ScriptedReply {
  const short = oneLine(prompt, SHORT_PROMPT_CHARS);
  const results = toolResults(request.messages);
  if (results.length === 0) {
    const program = programFor(prompt);
    return {
      reasoning: 'No tools are available here, so I can only describe the approach.',
      content: [
        `No tools were offered, so here is the approach rather than a result for "${short}":`,
        `1. Write a small ${program.language} script (${program.file}) that does it.`,
        `2. Run it with \`${program.runCommand}\` and check the output.`,
        '3. Fix what the output shows is wrong, then run it again.',
      ].join('\n'),
    };
  }
  const failures = results.filter((r) => r.failed).length;
  return {
    reasoning: `I have ${results.length} tool results; ${failures === 0 ? 'none failed' : `${failures} failed`}. Time to summarise them.`,
    content: [
      `Done: ${short}`,
      '',
      'What the tools reported:',
      ...results.map(describeResult),
      '',
      failures === 0 ? 'Every step succeeded.' : `${failures} of ${results.length} tool calls reported an error; see above.`,
    ].join('\n'),
  };
}

export function policyReply(request: ChatRequest): ScriptedReply {
  const prompt = firstUserText(request);
  const turns = planTurns(prompt, offeredToolNames(request));
  const made = new Set(request.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => `${c.function.name}\n${c.function.arguments}`)));
  const next = turns.find((turn) => !turn.calls.every((call) => made.has(`${call.name}\n${JSON.stringify(call.arguments)}`)));
  if (next === undefined || stepOf(request) >= turns.length + EXTRA_TURNS) return finalAnswer(request, prompt);
  return { reasoning: next.reasoning, content: next.content, tool_calls: next.calls };
}
