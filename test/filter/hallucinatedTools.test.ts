import { describe, expect, it } from 'vitest';
import type { ToolStats, Turn } from '@hermes-datagen/core';
import { hallucinatedTools, type ToolNamePolicy } from '@hermes-datagen/filter/internal/hallucinatedTools.js';
import { TrajectoryView } from '@hermes-datagen/filter/internal/trajectoryView.js';
import { gpt, human, rawGpt, system, tool, trajectory, type GptParts } from '../util/trajectories.js';

const registry: ToolNamePolicy = { valid: new Set(['terminal', 'read_file', 'web_search']), source: 'the tool registry', strictOffered: false };
const strict: ToolNamePolicy = { ...registry, strictOffered: true };
const stat = (count: number): ToolStats[string] => ({ count, success: count, failure: 0 });

function calling(calls: GptParts['calls'], toolStats: ToolStats = {}, systemTurn: Turn = system(['terminal', 'read_file'])): TrajectoryView {
  return new TrajectoryView(
    trajectory({
      conversations: [
        systemTurn,
        human(),
        gpt({ think: 'Use a tool.', calls }),
        tool({ name: 'terminal', content: 'ok' }),
        gpt({ think: 'Done.', text: 'ok' }),
      ],
      tool_stats: toolStats,
    }),
  );
}

describe('hallucinatedTools', () => {
  it('keeps calls to valid tools, and tool_stats normalised over other names with count 0', () => {
    expect(
      hallucinatedTools(calling([{ name: 'terminal', arguments: { command: 'ls' } }], { terminal: stat(1), some_old_tool: stat(0) }), registry),
    ).toBeNull();
  });

  it('drops a call to an unknown tool, naming it and where it is', () => {
    expect(hallucinatedTools(calling([{ name: 'terminal' }, { name: 'web_search_v2' }]), registry)).toEqual({
      reason: 'hallucinated_tool',
      detail: '"web_search_v2" (conversations[2]) is not in the tool registry',
    });
  });

  it('drops an unknown tool that appears only in tool_stats', () => {
    const verdict = hallucinatedTools(calling([{ name: 'terminal' }], { terminal: stat(1), browser_open: stat(2) }), registry);
    expect(verdict?.detail).toBe('"browser_open" (tool_stats) is not in the tool registry');
  });

  it('names each unknown tool once, at its first place', () => {
    const verdict = hallucinatedTools(calling([{ name: 'x_tool' }, { name: 'x_tool' }], { x_tool: stat(2) }), registry);
    expect(verdict?.detail).toBe('"x_tool" (conversations[2]) is not in the tool registry');
  });

  it.each<[string, string, RegExp]>([
    ['not JSON (single-quoted pseudo-JSON)', "{'name': 'terminal', 'arguments': {}}", /malformed <tool_call> in conversations\[2\]: not valid JSON/],
    ['truncated JSON', '{"name": "terminal", "argu', /not valid JSON/],
    ['no name', '{"arguments": {"command": "ls"}}', /no "name"/],
    ['an empty name', '{"name": "", "arguments": {}}', /no "name"/],
    ['arguments not an object', '{"name": "terminal", "arguments": "ls"}', /not a JSON object/],
  ])('counts a malformed <tool_call> as an invalid call: %s', (_name, inner, detail) => {
    const verdict = hallucinatedTools(calling([inner]), registry);
    expect(verdict?.reason).toBe('hallucinated_tool');
    expect(verdict?.detail).toMatch(detail);
  });

  it('counts a <tool_call> that never closes (a length stop) as malformed', () => {
    const record = trajectory({ conversations: [system(), human(), rawGpt('<think>\nx\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {"comm')] });
    expect(hallucinatedTools(new TrajectoryView(record), registry)?.detail).toMatch(/malformed <tool_call>/);
  });

  it('ignores a <tool_call> inside a think block (it was not called)', () => {
    const record = trajectory({
      conversations: [system(), human(), rawGpt('<think>maybe <tool_call>{"name": "nope", "arguments": {}}</tool_call></think>No call.')],
    });
    expect(hallucinatedTools(new TrajectoryView(record), registry)).toBeNull();
  });

  it('lists at most five problems', () => {
    const names = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'].map((name) => ({ name }));
    expect(hallucinatedTools(calling(names), registry)?.detail).toMatch(/"a5" .*; and 2 more$/);
  });

  describe('with strictOffered', () => {
    it('keeps calls to offered tools', () => {
      expect(hallucinatedTools(calling([{ name: 'read_file' }], { read_file: stat(1), web_search: stat(0) }), strict)).toBeNull();
    });

    it('drops a registry tool that the system turn did not offer, from a call or from tool_stats', () => {
      expect(hallucinatedTools(calling([{ name: 'web_search' }]), strict)?.detail).toBe('"web_search" (conversations[2]) is not offered in the system turn');
      expect(hallucinatedTools(calling([], { web_search: stat(1) }), strict)?.detail).toBe('"web_search" (tool_stats) is not offered in the system turn');
    });

    it('still requires the valid set', () => {
      expect(hallucinatedTools(calling([{ name: 'secret' }], {}, system(['terminal', 'secret'])), strict)?.detail).toBe(
        '"secret" (conversations[2]) is not in the tool registry',
      );
    });

    it('says so when the record has no readable tools list', () => {
      const noList: Turn = { from: 'system', value: 'You are helpful.' };
      expect(hallucinatedTools(calling([{ name: 'terminal' }], {}, noList), strict)?.detail).toMatch(/no system turn with a readable <tools> list/);
      expect(hallucinatedTools(calling([], {}, noList), strict)).toBeNull();
    });
  });
});
