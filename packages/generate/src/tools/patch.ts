// patch: a targeted find-and-replace in one file. The text to replace must occur exactly once
// unless replace_all is set, so an edit never lands somewhere the model did not mean.
import { optionalBoolean, requiredString } from './args.js';
import { confineToolPath } from './confine.js';
import { ToolError } from './toolError.js';
import type { AgentTool } from './types.js';
import { readWorkspaceFile, writeWorkspaceFile } from './workspaceFiles.js';

export interface PatchResult {
  path: string;
  replacements: number;
}

export const patchTool: AgentTool = {
  name: 'patch',
  toolset: 'file',
  description:
    'Replace text in a file in the workspace. old_string must match the file exactly (whitespace included) and occur ' +
    'once, unless replace_all is true. Use write_file to create a file.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace' },
      old_string: { type: 'string', description: 'The exact text to replace' },
      new_string: { type: 'string', description: 'The text to put in its place' },
      replace_all: { type: 'boolean', default: false, description: 'Replace every occurrence instead of exactly one' },
    },
    required: ['path', 'old_string', 'new_string'],
  },
  async run(args, ctx): Promise<PatchResult> {
    const target = await confineToolPath(ctx, requiredString(args, 'path'));
    const oldString = requiredString(args, 'old_string');
    const newString = requiredString(args, 'new_string');
    const replaceAll = optionalBoolean(args, 'replace_all') ?? false;
    if (oldString === '') throw new ToolError('old_string is empty; give the exact text to replace, or use write_file to write the whole file');
    if (oldString === newString) throw new ToolError('old_string and new_string are identical; nothing would change');
    const text = (await readWorkspaceFile(target)).toString('utf8');
    const occurrences = countOccurrences(text, oldString);
    if (occurrences === 0) {
      throw new ToolError(`old_string was not found in ${target.relative}; read the file with read_file and copy the exact text, whitespace included`);
    }
    if (occurrences > 1 && !replaceAll) {
      throw new ToolError(
        `old_string occurs ${occurrences} times in ${target.relative}; include more surrounding lines to make it unique, or set replace_all to true`,
      );
    }
    const at = text.indexOf(oldString);
    const patched = replaceAll ? text.split(oldString).join(newString) : text.slice(0, at) + newString + text.slice(at + oldString.length);
    await writeWorkspaceFile(target, patched);
    return { path: target.relative, replacements: occurrences };
  },
};

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}
