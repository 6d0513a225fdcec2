// --strategy llm: the region summarised by the project's one endpoint with upstream's prompt
// (docs/compression.md#the-summary, the same-language clause included), max_tokens = 2 × the summary target,
// temperature left out for models whose server manages it (Kimi). A reply cut by the length limit is
// never used: the attempt fails, and the next one may use twice the tokens (upstream retried with the
// same limit, which fails the same way). Attempts back off with jitter; after the last, the caller
// falls back to key_decision_extract, never to a content-free placeholder.
import type { Turn } from '@hermes-datagen/core';
import { pause, type ChatClient } from '@hermes-datagen/core/endpoint';
import type { CompressConfig } from './config.js';
import { escapeTags } from './escape.js';
import { SUMMARY_PREFIX } from './extract.js';

export interface SummaryAttempts {
  /** The summary turn's value, or null when every attempt failed. */
  readonly summary: string | null;
  readonly calls: number;
  readonly errors: number;
  /** Why the last attempt failed. */
  readonly lastError?: string;
}

export interface Summarizer {
  /** `targetTokens`: the summary's size asked for (the summary target, or less for a region smaller than it). */
  summarize(region: readonly Turn[], start: number, signal: AbortSignal, targetTokens: number): Promise<SummaryAttempts>;
}

const ELIDE_ABOVE = 3000;
const ELIDE_HEAD = 1500;
const ELIDE_TAIL = 500;

/** Upstream's _extract_turn_content_for_summary, with V-new's elision marker. */
export function renderRegion(region: readonly Turn[], start: number): string {
  return region
    .map((turn, i) => {
      const chars = Array.from(turn.value ?? '');
      const value =
        chars.length > ELIDE_ABOVE
          ? `${chars.slice(0, ELIDE_HEAD).join('')}⟪HERMES-CONTEXT-COMPRESSION: ${(chars.length - ELIDE_HEAD - ELIDE_TAIL).toLocaleString('en-US')} of ${chars.length.toLocaleString('en-US')} chars omitted here by Hermes's context compressor.⟫${chars.slice(-ELIDE_TAIL).join('')}`
          : turn.value;
      return `[Turn ${start + i} - ${(turn.from ?? 'unknown').toUpperCase()}]:\n${value}`;
    })
    .join('\n\n');
}

export function summaryPrompt(rendered: string, summaryTargetTokens: number): string {
  return `Summarize the following agent conversation turns concisely. This summary will replace these turns in the conversation history.

CRITICAL: Write the summary in the same language as the conversation turns. If the turns are in Arabic, write in Arabic; if they mix languages, use the dominant one. Never translate.

Write the summary from a neutral perspective describing what the assistant did and learned. Include:
1. What actions the assistant took (tool calls, searches, file operations)
2. Key information or results obtained
3. Important decisions made or findings
4. Relevant data, file names, values, or outputs

Keep the summary factual and informative. Target approximately ${summaryTargetTokens} tokens.

---
TURNS TO SUMMARIZE:
${rendered}
---

Write only the summary, starting with "${SUMMARY_PREFIX}" prefix.`;
}

/** Upstream's _finish_summary on the reply text: the prefix ensured, and (ours) tags escaped. */
export function finishSummary(content: unknown): string {
  const text = (typeof content === 'string' ? content : content ? String(content) : '').trim();
  const body = text.startsWith(SUMMARY_PREFIX) ? text : text === '' ? SUMMARY_PREFIX : `${SUMMARY_PREFIX} ${text}`;
  return escapeTags(body);
}

/** Models whose temperature the server manages (upstream PR #13157): the key is left out. */
export function omitsTemperature(model: string): boolean {
  return /(^|\/)kimi-/i.test(model);
}

/** upstream's jittered_backoff: min(base × 2^(attempt−1), 30 s) plus up to half of it again. */
export function backoffMs(attempt: number, baseSeconds: number, random: () => number = Math.random): number {
  const delay = Math.min(baseSeconds * 2 ** (attempt - 1), 30);
  return (delay + random() * 0.5 * delay) * 1000;
}

type Settings = Pick<CompressConfig, 'temperature' | 'maxRetries' | 'retryDelay'>;

export function llmSummarizer(client: ChatClient, model: string, settings: Settings): Summarizer {
  return {
    async summarize(region, start, signal, targetTokens) {
      const prompt = summaryPrompt(renderRegion(region, start), targetTokens);
      let maxTokens = targetTokens * 2;
      let errors = 0;
      let lastError: string | undefined;
      for (let attempt = 1; attempt <= settings.maxRetries; attempt++) {
        signal.throwIfAborted();
        try {
          const reply = await client.chat.completions.create(
            {
              model,
              messages: [{ role: 'user', content: prompt }],
              max_tokens: maxTokens,
              ...(omitsTemperature(model) ? {} : { temperature: settings.temperature }),
            },
            { signal },
          );
          const choice = reply.choices?.[0];
          if (!choice) throw new Error('the reply has no choices');
          if (String(choice.finish_reason ?? '').toLowerCase() === 'length') {
            maxTokens = targetTokens * 4;
            throw new Error(`the summary was cut at max_tokens (finish_reason "length")`);
          }
          return { summary: finishSummary(choice.message?.content), calls: attempt, errors, ...(lastError ? { lastError } : {}) };
        } catch (err) {
          if (signal.aborted) throw err;
          errors++;
          lastError = (err as Error).message;
          if (attempt < settings.maxRetries) await pause(backoffMs(attempt, settings.retryDelay), signal);
        }
      }
      return { summary: null, calls: settings.maxRetries, errors, ...(lastError ? { lastError } : {}) };
    },
  };
}
