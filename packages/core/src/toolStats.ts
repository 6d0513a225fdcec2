// Per-tool call counts and the success/failure heuristic (docs/rules.md#tool-success).
import type { ChatMessage, ToolErrorCounts, ToolStat, ToolStats, Turn } from './model.js';
import { isPlainObject } from './plainObject.js';
import { validToolCalls } from './toolCalls.js';
import { parseGptValue, parseToolValue } from './turns.js';
import { pythonStrip } from './pythonText.js';
import { parseJsonLossless } from './losslessJson.js';

/** What normalisation needs from a tool registry: every valid tool name. */
export interface ToolNames {
  readonly names: readonly string[];
}

/**
 * Upstream's heuristic, kept as it is so statistics compare with upstream's: text that is not JSON fails
 * only when empty or starting with "error:" (so "Error command failed" succeeds); JSON fails only as a
 * dict with a non-null "error", a terminal wrapper {"content": {"error": ...}}, or "success": false.
 * A non-zero exit_code is a success: the command ran. Unlike upstream, a missing (null) result is a
 * failure, like an empty one.
 */
export function toolCallSucceeded(content: unknown): boolean {
  if (content === null || content === undefined) return false;
  let value: unknown = content;
  if (typeof content === 'string') {
    try {
      // Upstream decides with Python's json.loads, which also reads NaN, Infinity and -Infinity: a
      // result such as {"error": "boom", "score": NaN} is an object with an error there, a failure.
      value = parseJsonPythonTokens(content);
    } catch {
      return content !== '' && !pythonStrip(content).toLowerCase().startsWith('error:');
    }
  }
  if (!isPlainObject(value)) return true;
  if (value['error'] !== undefined && value['error'] !== null) return false;
  const wrapped = value['content'];
  if (isPlainObject(wrapped) && wrapped['error'] !== undefined && wrapped['error'] !== null) return false;
  return value['success'] !== false;
}

/**
 * From the agent's internal messages: each call counts for its tool; each result is matched to its call
 * by tool_call_id, and results with an unknown id are ignored (so count can exceed success + failure).
 */
export function extractToolStats(messages: readonly ChatMessage[]): ToolStats {
  const stats = new StatsBuilder();
  const toolOfCall = new Map<string, string>();
  for (const msg of messages) {
    if (msg.role === 'assistant') {
      for (const call of validToolCalls(msg)) {
        stats.called(call.function.name);
        toolOfCall.set(call.id, call.function.name);
      }
    } else if (msg.role === 'tool') {
      const name = msg.tool_call_id === undefined ? undefined : toolOfCall.get(msg.tool_call_id);
      if (name !== undefined) stats.answered(name, toolCallSucceeded(msg.content));
    }
  }
  return stats.build();
}

/**
 * The same statistics recomputed from a ShareGPT record: the <tool_call> blocks of each gpt turn, and
 * the <tool_response> blocks of the tool turn right after it, paired by position as the conversion
 * pairs them. A block without a tool name is not counted; a response block that cannot be read has no
 * content and counts as a failure.
 */
export function toolStatsFromConversations(turns: readonly Turn[]): ToolStats {
  const stats = new StatsBuilder();
  turns.forEach((turn, i) => {
    if (turn.from !== 'gpt') return;
    const next = turns[i + 1];
    const responses = next?.from === 'tool' ? parseToolValue(next.value) : [];
    parseGptValue(turn.value).toolCalls.forEach((call, k) => {
      if (call.name === null) return;
      stats.called(call.name);
      const response = responses[k];
      if (response) stats.answered(call.name, toolCallSucceeded(response.content));
    });
  });
  return stats.build();
}

/**
 * Every registry name (with zeros when not called) plus any other name that was called, keys sorted,
 * so that every record has the same keys in the same order (upstream's order varies per process).
 */
export function normaliseToolStats(stats: ToolStats, registry: ToolNames): ToolStats {
  return normalised(
    stats,
    registry,
    (keys) => keys.zeroStats,
    (stat) => ({ ...stat }),
    NEVER_CALLED,
  );
}

/** `{tool: failure count}` over the same keys as normaliseToolStats. */
export function toolErrorCounts(stats: ToolStats, registry: ToolNames): ToolErrorCounts {
  return normalised(
    stats,
    registry,
    (keys) => keys.zeroCounts,
    (stat) => stat.failure,
    0,
  );
}

/** Every registry name and any other called one, sorted: `value` of a called tool's stat, `never` for the rest. */
function normalised<T>(
  stats: ToolStats,
  registry: ToolNames,
  template: (keys: RegistryKeys) => Record<string, T>,
  value: (stat: ToolStat) => T,
  never: T,
): Record<string, T> {
  const keys = registryKeys(registry);
  const called = Object.keys(stats);
  if (called.every(keys.has)) {
    const result = { ...template(keys) };
    for (const name of called) defineKey(result, name, value(ownStat(stats, name)!));
    return result;
  }
  // A name outside the registry (a hallucinated tool): the keys are sorted anew.
  const result: Record<string, T> = {};
  for (const name of withOthers(keys.sorted, called)) {
    const own = ownStat(stats, name);
    defineKey(result, name, own === undefined ? never : value(own));
  }
  return result;
}

/** The stat of a tool a record did not call, outside the registry's template (whose zeros are frozen too). */
const NEVER_CALLED: ToolStat = Object.freeze({ count: 0, success: 0, failure: 0 });

/** As Object.fromEntries defines a key: a tool named "__proto__" is a key like any other, not the prototype. */
function defineKey<T>(target: Record<string, T>, name: string, value: T): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

function withOthers(sorted: readonly string[], called: readonly string[]): readonly string[] {
  return [...new Set([...sorted, ...called])].sort();
}

interface RegistryKeys {
  readonly sorted: readonly string[];
  readonly has: (name: string) => boolean;
  /**
   * Every registry name, sorted, with zeros: copied for each record. An object given dozens of keys
   * one by one (or by Object.fromEntries) is kept by V8 as a dictionary, slow to copy, to iterate and
   * to serialise; one made by JSON.parse has fast properties, and so has a spread copy of it. The
   * zero stats are frozen, as every record shares them.
   */
  readonly zeroStats: ToolStats;
  readonly zeroCounts: ToolErrorCounts;
}

/** Worked out once per registry: every record of a run is normalised against the same one. */
const REGISTRY_KEYS = new WeakMap<readonly string[], RegistryKeys>();

function registryKeys(registry: ToolNames): RegistryKeys {
  let keys = REGISTRY_KEYS.get(registry.names);
  if (keys === undefined) {
    const names = new Set(registry.names);
    const sorted = [...names].sort();
    const zeroStats = JSON.parse(JSON.stringify(Object.fromEntries(sorted.map((name) => [name, NEVER_CALLED])))) as ToolStats;
    for (const name of sorted) Object.freeze(zeroStats[name]);
    const zeroCounts = JSON.parse(JSON.stringify(Object.fromEntries(sorted.map((name) => [name, 0])))) as ToolErrorCounts;
    keys = { sorted, has: (name) => names.has(name), zeroStats, zeroCounts };
    REGISTRY_KEYS.set(registry.names, keys);
  }
  return keys;
}

// Tool names are data: "constructor" or "__proto__" must not reach Object.prototype.
function ownStat(stats: ToolStats, name: string): ToolStat | undefined {
  return Object.hasOwn(stats, name) ? stats[name] : undefined;
}

class StatsBuilder {
  private readonly stats = new Map<string, ToolStat>();

  public called(name: string): void {
    this.stat(name).count += 1;
  }

  public answered(name: string, succeeded: boolean): void {
    if (succeeded) this.stat(name).success += 1;
    else this.stat(name).failure += 1;
  }

  public build(): ToolStats {
    return Object.fromEntries(this.stats);
  }

  private stat(name: string): ToolStat {
    let stat = this.stats.get(name);
    if (!stat) {
      stat = { count: 0, success: 0, failure: 0 };
      this.stats.set(name, stat);
    }
    return stat;
  }
}

/** JSON.parse, and for text it refuses that holds NaN or Infinity, the parser that reads them as json.loads does. */
function parseJsonPythonTokens(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    if (/NaN|Infinity/.test(text)) return parseJsonLossless(text);
    throw err;
  }
}
