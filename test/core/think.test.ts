import { describe, expect, it } from 'vitest';
import { extractReasoning, type AssistantMessage } from '@hermes-datagen/core';
import { convertScratchpadToThink, gptValueFromAssistant, type ExtractedReasoning } from '@hermes-datagen/core/internal/think.js';
import { parsedJson } from '../util/parsedJson.js';

const assistant = (fields: Partial<AssistantMessage>): AssistantMessage => ({ role: 'assistant', content: null, ...fields });
const call = (id: string, name: string, args: string | Record<string, unknown>) => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe('convertScratchpadToThink', () => {
  it.each<[string, string]>([
    ['no scratchpad here', 'no scratchpad here'],
    ['', ''],
    ['<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>answer', '<think>plan</think>answer'],
    ['<REASONING_SCRATCHPAD>a</REASONING_SCRATCHPAD><REASONING_SCRATCHPAD>b</REASONING_SCRATCHPAD>', '<think>a</think><think>b</think>'],
    ['only a close </REASONING_SCRATCHPAD> tag', 'only a close </REASONING_SCRATCHPAD> tag'],
    ['unclosed <REASONING_SCRATCHPAD>plan', 'unclosed <think>plan'],
  ])('%j -> %j', (input, expected) => {
    expect(convertScratchpadToThink(input)).toBe(expected);
  });
});

describe('gptValueFromAssistant, branch B (no tool calls)', () => {
  it.each<[string, Partial<AssistantMessage>, string]>([
    ['reasoning then content', { reasoning: 'Think.', content: 'Answer.' }, '<think>\nThink.\n</think>\nAnswer.'],
    ['no reasoning: empty think block inserted', { content: 'Answer.' }, '<think>\n</think>\nAnswer.'],
    ['null content and no reasoning', { content: null }, '<think>\n</think>'],
    ['whitespace-only reasoning counts as none', { reasoning: ' \n ', content: 'A' }, '<think>\n</think>\nA'],
    ['reasoning itself is not stripped', { reasoning: '  R  ', content: 'A' }, '<think>\n  R  \n</think>\nA'],
    ['trailing whitespace is stripped, leading whitespace of the content kept', { content: '\n  hi  \n' }, '<think>\n</think>\n\n  hi'],
    ['scratchpad becomes the think block', { content: '<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>answer' }, '<think>plan</think>answer'],
    [
      'native reasoning and a scratchpad give two think blocks',
      { reasoning: 'R', content: '<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>answer' },
      '<think>\nR\n</think>\n<think>plan</think>answer',
    ],
    // An unclosed <think> (prose, or a reply cut off while thinking) gets no empty block in front, as
    // upstream: never two opening tags and one closing tag.
    ['an unclosed <think> gets no empty block in front', { content: 'Wrap it in a <think> tag.' }, 'Wrap it in a <think> tag.'],
    ['a reply cut off while thinking keeps its one opening tag', { content: '<think>I should first' }, '<think>I should first'],
    ['a think block later in the content suppresses it', { content: 'Answer <think>x</think>' }, 'Answer <think>x</think>'],
    ['an unclosed scratchpad becomes an unclosed <think>, with no empty block in front', { content: '<REASONING_SCRATCHPAD>cut' }, '<think>cut'],
    ['a closed <think> after an unclosed one', { content: 'a <think> b <think>c</think>' }, 'a <think> b <think>c</think>'],
    ['raw inline think in content is kept as is', { content: '<think>hm</think>Hi' }, '<think>hm</think>Hi'],
    ['reasoning_content when reasoning is absent', { reasoning_content: 'RC', content: 'A' }, '<think>\nRC\n</think>\nA'],
    [
      'reasoning_details when reasoning is absent',
      { reasoning_details: [{ type: 'reasoning.summary', summary: 'S' }], content: 'A' },
      '<think>\nS\n</think>\nA',
    ],
    ['reasoning wins over the raw provider fields', { reasoning: 'R\n\nRC', reasoning_content: 'RC', content: 'A' }, '<think>\nR\n\nRC\n</think>\nA'],
    ['tool_calls with no usable entry is branch B', { content: 'A', tool_calls: parsedJson<AssistantMessage['tool_calls']>([null]) }, '<think>\n</think>\nA'],
  ])('%s', (_name, fields, expected) => {
    expect(gptValueFromAssistant(assistant(fields))).toBe(expected);
  });
});

describe('gptValueFromAssistant, branch A (tool calls)', () => {
  it.each<[string, Partial<AssistantMessage>, string]>([
    [
      'reasoning, content and one call',
      { reasoning: 'R', content: 'I will write.', tool_calls: [call('c1', 'write_file', '{"path": "a", "content": "x\\n"}')] },
      '<think>\nR\n</think>\nI will write.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "x\\n"}}\n</tool_call>',
    ],
    [
      'no reasoning, empty content, two calls',
      { content: '', tool_calls: [call('c1', 'terminal', '{"command":"ls"}'), call('c2', 'read_file', { path: 'a' })] },
      '<think>\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>',
    ],
    [
      'whitespace-only content is left out',
      { content: '  \n', tool_calls: [call('c1', 'terminal', '{}')] },
      '<think>\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {}}\n</tool_call>',
    ],
    [
      'invalid JSON arguments become {}',
      { content: null, tool_calls: [call('c1', 'terminal', '{"command": ')] },
      '<think>\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {}}\n</tool_call>',
    ],
    [
      'a scratchpad in content becomes the think block',
      { content: '<REASONING_SCRATCHPAD>p</REASONING_SCRATCHPAD>', tool_calls: [call('c1', 't', '{}')] },
      '<think>p</think>\n<tool_call>\n{"name": "t", "arguments": {}}\n</tool_call>',
    ],
    [
      'non-dict entries are skipped',
      { content: null, tool_calls: parsedJson<AssistantMessage['tool_calls']>([null, call('c1', 't', '{}')]) },
      '<think>\n</think>\n<tool_call>\n{"name": "t", "arguments": {}}\n</tool_call>',
    ],
    [
      'a think block inside tool_call arguments does not count',
      { content: null, tool_calls: [call('c1', 'write_file', '{"content": "<think>x</think>"}')] },
      '<think>\n</think>\n<tool_call>\n{"name": "write_file", "arguments": {"content": "<think>x</think>"}}\n</tool_call>',
    ],
    [
      'numbers in arguments are written as received (Python json.loads + json.dumps)',
      { content: null, tool_calls: [call('c1', 't', '{"id": 12345678901234567890, "a": 1.0, "b": -0.0, "c": 1e5, "d": NaN, "e": -Infinity, "f": 0.5}')] },
      '<think>\n</think>\n<tool_call>\n{"name": "t", "arguments": {"id": 12345678901234567890, "a": 1.0, "b": -0.0, "c": 100000.0, "d": NaN, "e": -Infinity, "f": 0.5}}\n</tool_call>',
    ],
    [
      'leading whitespace of content is kept (only the end is stripped)',
      { content: '  x', tool_calls: [call('c1', 't', '{}')] },
      '<think>\n</think>\n  x\n<tool_call>\n{"name": "t", "arguments": {}}\n</tool_call>',
    ],
  ])('%s', (_name, fields, expected) => {
    expect(gptValueFromAssistant(assistant(fields))).toBe(expected);
  });
});

describe('extractReasoning', () => {
  it.each<[string, Partial<AssistantMessage>, ExtractedReasoning]>([
    ['nothing at all', { content: 'Hi' }, { reasoning: null, content: 'Hi' }],
    ['null content', { content: null }, { reasoning: null, content: null }],
    ['reasoning field', { reasoning: 'R', content: 'Hi' }, { reasoning: 'R', content: 'Hi' }],
    ['reasoning_content field', { reasoning_content: 'RC', content: 'Hi' }, { reasoning: 'RC', content: 'Hi' }],
    [
      'all sources joined with a blank line, in order',
      {
        reasoning: 'R',
        reasoning_content: 'RC',
        reasoning_details: [{ summary: 'S' }, { thinking: 'T' }, { content: 'C' }, { text: 'X' }],
        content: 'Hi',
      },
      { reasoning: 'R\n\nRC\n\nS\n\nT\n\nC\n\nX', content: 'Hi' },
    ],
    [
      'duplicates appear once',
      { reasoning: 'Same', reasoning_content: 'Same', reasoning_details: [{ text: 'Same' }], content: 'Hi' },
      { reasoning: 'Same', content: 'Hi' },
    ],
    [
      'a detail uses its first non-empty field',
      { reasoning_details: [{ summary: '', thinking: 'T', text: 'X' }], content: 'Hi' },
      { reasoning: 'T', content: 'Hi' },
    ],
    [
      'blank fields are ignored',
      { reasoning: '  ', reasoning_content: '', reasoning_details: [{ type: 'reasoning.encrypted' }], content: 'Hi' },
      { reasoning: null, content: 'Hi' },
    ],
    ['inline <think> moves out of the content', { content: '<think>\nplan\n</think>\nAnswer' }, { reasoning: 'plan', content: 'Answer' }],
    [
      'inline <thinking>, <thought>, <reasoning>',
      { content: '<thinking>a</thinking><thought>b</thought><reasoning>c</reasoning>X' },
      { reasoning: 'a\n\nb\n\nc', content: 'X' },
    ],
    ['inline scratchpad', { content: '<REASONING_SCRATCHPAD>p</REASONING_SCRATCHPAD>Answer' }, { reasoning: 'p', content: 'Answer' }],
    ['an empty inline block is removed but is not reasoning', { content: '<think></think>Answer' }, { reasoning: null, content: 'Answer' }],
    [
      'inline blocks are ignored when structured reasoning exists',
      { reasoning: 'R', content: '<REASONING_SCRATCHPAD>p</REASONING_SCRATCHPAD>A' },
      { reasoning: 'R', content: '<REASONING_SCRATCHPAD>p</REASONING_SCRATCHPAD>A' },
    ],
    ['a <think> mentioned in prose is not a block', { content: 'Use a <think> tag.' }, { reasoning: null, content: 'Use a <think> tag.' }],
    ['prose mention next to a real block', { content: 'About <think>: <think>real</think> done' }, { reasoning: 'real', content: 'About <think>:  done' }],
  ])('%s', (_name, fields, expected) => {
    expect(extractReasoning(assistant(fields))).toEqual(expected);
  });

  it('feeds gptValueFromAssistant: inline reasoning becomes the think block', () => {
    const extracted = extractReasoning(assistant({ content: '<think>plan</think>Answer' }));
    expect(gptValueFromAssistant(assistant(extracted))).toBe('<think>\nplan\n</think>\nAnswer');
  });
});
