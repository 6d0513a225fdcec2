// search_files: a regular-expression search over file contents, or a glob search over file names,
// under a directory of the workspace. Everything is bounded: the number of results, the files
// visited, the size of a file searched and the time spent (the context's timeout), so a search over
// a large tree returns what it found with `truncated: true` instead of running on. Files too large
// to search are named in the note, so an empty result never hides a file that was not looked at.
//
// The walk never follows symbolic links (a link could lead out of the workspace or into a loop) and
// skips .git. The pattern is matched by RE2 (re2js), whose time is linear in the text searched: a
// pattern that makes a backtracking engine run for minutes (`^(a+)+$` on a line of a's) cannot stall
// this process, where every other prompt's work runs too. RE2 has no lookaround or backreferences; a
// pattern that uses them is refused with a message that says so.
import { lstat, opendir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { optionalInteger, optionalString, requiredString } from './args.js';
import { confineToolPath } from './confine.js';
import { globToRegExp, matchesGlob } from './glob.js';
import { ToolError } from './toolError.js';
import type { AgentTool } from './types.js';
import { looksBinary } from './workspaceFiles.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const MAX_FILES_VISITED = 20_000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_SEARCH_LINE_CHARS = 10_000;
const MAX_SHOWN_LINE_CHARS = 300;
const MAX_NAMED_LARGE_FILES = 5;
const SKIPPED_DIRECTORIES = new Set(['.git']);

export interface ContentMatch {
  path: string;
  line: number;
  text: string;
}

export type SearchFilesResult = { matches: ContentMatch[]; truncated: boolean; note?: string } | { files: string[]; truncated: boolean; note?: string };

export const searchFilesTool: AgentTool = {
  name: 'search_files',
  toolset: 'file',
  description:
    'Search the workspace. target "content" (default): lines of files matching a regular expression, with path and ' +
    'line number; file_glob (e.g. "*.py") limits which files are searched. target "files": file paths matching a ' +
    'glob pattern (e.g. "*.json", "src/**/*.ts"). Results are capped at limit.',
  parameters: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Regular expression (content) or glob (files)' },
      target: { type: 'string', enum: ['content', 'files'], default: 'content', description: 'Search file contents or file names' },
      path: { type: 'string', description: 'Directory or file to search, relative to the workspace (default ".")' },
      file_glob: { type: 'string', description: 'Only search files whose name matches this glob (content search)' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `Most results to return (default ${DEFAULT_LIMIT})` },
    },
    required: ['pattern'],
  },
  async run(args, ctx): Promise<SearchFilesResult> {
    const pattern = requiredString(args, 'pattern');
    const target = optionalString(args, 'target') ?? 'content';
    if (target !== 'content' && target !== 'files') throw new ToolError(`target must be "content" or "files", not "${target}"`);
    const limit = Math.min(optionalInteger(args, 'limit', 1) ?? DEFAULT_LIMIT, MAX_LIMIT);
    const root = await confineToolPath(ctx, optionalString(args, 'path') ?? '.');
    const rootKind = await kindOf(root.absolute);
    if (rootKind === undefined) throw new ToolError(`path not found: ${root.relative}`);
    const walk = new BoundedWalk(root.absolute, root.relative, Date.now() + ctx.timeoutMs);

    if (target === 'files') {
      const glob = globToRegExp(pattern);
      const files: string[] = [];
      for await (const file of walk.files(rootKind)) {
        if (!matchesGlob(file.fromRoot, glob, pattern.includes('/'))) continue;
        if (files.length === limit) return withNote({ files, truncated: true }, `more than ${limit} files match; narrow the pattern or path`);
        files.push(file.fromWorkspace);
      }
      return withNote({ files, truncated: walk.stoppedEarly !== undefined }, walk.stoppedEarly);
    }

    const regex = compile(pattern);
    const fileGlobText = optionalString(args, 'file_glob');
    const fileGlob = fileGlobText === undefined ? undefined : { regex: globToRegExp(fileGlobText), hasSlash: fileGlobText.includes('/') };
    const matches: ContentMatch[] = [];
    const tooLarge: string[] = [];
    for await (const file of walk.files(rootKind)) {
      if (fileGlob && !matchesGlob(file.fromRoot, fileGlob.regex, fileGlob.hasSlash)) continue;
      const lines = await searchableLines(file.absolute);
      if (lines === TOO_LARGE) {
        tooLarge.push(file.fromWorkspace);
        continue;
      }
      for (let index = 0; index < lines.length; index += 1) {
        const line = lines[index] ?? '';
        if (!regex.test(line.length > MAX_SEARCH_LINE_CHARS ? line.slice(0, MAX_SEARCH_LINE_CHARS) : line)) continue;
        if (matches.length === limit)
          return withNote({ matches, truncated: true }, `more than ${limit} matches; narrow the pattern, path or file_glob`, tooLargeNote(tooLarge));
        matches.push({ path: file.fromWorkspace, line: index + 1, text: shown(line) });
      }
    }
    return withNote({ matches, truncated: walk.stoppedEarly !== undefined }, walk.stoppedEarly, tooLargeNote(tooLarge));
  },
};

interface WalkedFile {
  absolute: string;
  /** Relative to the search root, with `/`: what file globs match. */
  fromRoot: string;
  /** Relative to the workspace: what the model sees and can pass to read_file. */
  fromWorkspace: string;
}

/** A depth-first walk in name order (results are reproducible) that stops at its budgets. */
class BoundedWalk {
  public stoppedEarly: string | undefined;
  private visited = 0;

  public constructor(
    private readonly rootAbsolute: string,
    private readonly rootRelative: string,
    private readonly deadline: number,
  ) {}

  public async *files(rootKind: 'file' | 'directory'): AsyncGenerator<WalkedFile> {
    if (rootKind === 'file') {
      const name = this.rootRelative.slice(this.rootRelative.lastIndexOf('/') + 1);
      yield { absolute: this.rootAbsolute, fromRoot: name, fromWorkspace: this.rootRelative };
      return;
    }
    yield* this.directory(this.rootAbsolute, '');
  }

  private async *directory(absolute: string, fromRoot: string): AsyncGenerator<WalkedFile> {
    const entries = [];
    for await (const entry of await opendir(absolute)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (this.stoppedEarly !== undefined) return;
      const childFromRoot = fromRoot === '' ? entry.name : `${fromRoot}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) {
        yield* this.directory(join(absolute, entry.name), childFromRoot);
      } else if (entry.isFile()) {
        this.visited += 1;
        if (this.visited > MAX_FILES_VISITED) {
          this.stoppedEarly = `stopped after ${MAX_FILES_VISITED} files; search a smaller path`;
          return;
        }
        if (Date.now() > this.deadline) {
          this.stoppedEarly = 'stopped at the time limit; search a smaller path or a simpler pattern';
          return;
        }
        const fromWorkspace = this.rootRelative === '.' ? childFromRoot : `${this.rootRelative}/${childFromRoot}`;
        yield { absolute: join(absolute, entry.name), fromRoot: childFromRoot, fromWorkspace };
      }
    }
  }
}

async function kindOf(path: string): Promise<'file' | 'directory' | undefined> {
  try {
    const stats = await lstat(path);
    return stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

const TOO_LARGE = Symbol('too large');

/** The lines of a text file, none for a binary or unreadable one, TOO_LARGE for one over MAX_FILE_BYTES. */
async function searchableLines(path: string): Promise<string[] | typeof TOO_LARGE> {
  try {
    if ((await lstat(path)).size > MAX_FILE_BYTES) return TOO_LARGE;
    const bytes = await readFile(path);
    return looksBinary(bytes) ? [] : bytes.toString('utf8').split('\n');
  } catch {
    return [];
  }
}

function compile(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new ToolError(
      `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message} ` +
        '(RE2 syntax: no lookaround or backreferences; search with grep -P in the terminal for those)',
    );
  }
}

function shown(line: string): string {
  const trimmed = line.trim();
  return trimmed.length <= MAX_SHOWN_LINE_CHARS ? trimmed : `${trimmed.slice(0, MAX_SHOWN_LINE_CHARS)}…`;
}

/** Names the files that were too large to search (the first few of them). */
function tooLargeNote(paths: readonly string[]): string | undefined {
  if (paths.length === 0) return undefined;
  const shownPaths = paths.slice(0, MAX_NAMED_LARGE_FILES).join(', ') + (paths.length > MAX_NAMED_LARGE_FILES ? ', ...' : '');
  return `${paths.length} file${paths.length === 1 ? '' : 's'} over ${MAX_FILE_BYTES / (1024 * 1024)} MiB not searched: ${shownPaths}; read them in parts with read_file, or search them with grep in the terminal`;
}

function withNote<T extends { truncated: boolean }>(result: T, ...notes: (string | undefined)[]): T & { note?: string } {
  const note = notes.filter((text) => text !== undefined).join('; ');
  return note === '' ? result : { ...result, note };
}
