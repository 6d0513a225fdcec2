// A real tokenizer with its chat template, read from local files only: --tokenizer DIR|PACKAGE is core's
// loader (hfTokenizer.ts, which hermes-compress uses too: nothing is downloaded). A byte-level BPE
// tokenizer that tiktoken's engine runs with the same tokens (Qwen2's, Qwen3's) is run by it
// (byteLevelBpe.ts, about twelve times faster); any other by core's @lenml/tokenizers. The template is
// rendered with @huggingface/jinja, whose Jinja covers current templates (Qwen3's among them) where the
// tokenizer package's own copy does not.
import { createHash } from 'node:crypto';
import {
  buildHfTokenizer,
  isPlainObject,
  loadOptionFile,
  optionFileError,
  readHfTokenizerFiles,
  UsageError,
  type OptionFile,
  type TokenizerOptions as LoaderOptions,
} from '@hermes-datagen/core';
import type { AtroposMessage } from './atropos.js';
import { byteLevelBpe } from './byteLevelBpe.js';
import { usePythonStrip } from './jinjaPythonStrings.js';
import { regionRenderer, type RenderedRegions } from './messageRegions.js';

export interface ChatTokenizer {
  /** Where the tokenizer and template came from, and the template's hash: said on stderr. */
  readonly description: string;
  /** `tools`: JSON-schema function definitions, for templates that render them (Qwen3's). */
  render(messages: readonly AtroposMessage[], addGenerationPrompt: boolean, tools?: readonly unknown[]): string;
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

export interface TokenizerOptions extends LoaderOptions {
  /** A .jinja file replacing the tokenizer's own template. */
  readonly chatTemplate?: string;
}

export async function loadChatTokenizer(options: TokenizerOptions): Promise<ChatTokenizer> {
  const files = readHfTokenizerFiles(options);
  const { dir, config, configFile } = files;
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
  // Built after the template is found: a missing template is the clearer error.
  const tokenizer = byteLevelBpe(files.json) ?? (await buildHfTokenizer(files));
  const specialTokens = Object.fromEntries(['bos_token', 'eos_token', 'unk_token', 'pad_token'].map((name) => [name, tokenText(config[name])]));
  const hash = createHash('sha256').update(templateText).digest('hex').slice(0, 12);
  const render = (messages: readonly AtroposMessage[], addGenerationPrompt: boolean, tools?: readonly unknown[]) =>
    template.render({ ...specialTokens, messages, add_generation_prompt: addGenerationPrompt, ...(tools ? { tools } : {}) });
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
    encode: tokenizer.encode,
    decode: tokenizer.decode,
  };
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
