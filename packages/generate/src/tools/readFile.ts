// read_file: a text file with numbered lines (`     1|text`), upstream's shape (its
// read_file result: `{"content": "     1|print('hi')\n", "total_lines": 1}`), read a window at a time.
import { optionalInteger, requiredString } from './args.js';
import { confineToolPath } from './confine.js';
import { ToolError } from './toolError.js';
import type { AgentTool } from './types.js';
import { looksBinary, readWorkspaceFile } from './workspaceFiles.js';

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;

export interface ReadFileResult {
  content: string;
  total_lines: number;
  /** Present when lines after this window were left out: pass it as `offset` to read on. */
  next_offset?: number;
}

export const readFileTool: AgentTool = {
  name: 'read_file',
  toolset: 'file',
  description:
    `Read a text file in the workspace with line numbers ("     1|text"). Reads ${DEFAULT_LIMIT} lines from offset ` +
    '(1-based) by default; when more lines follow, the result has next_offset to continue from.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace' },
      offset: { type: 'integer', minimum: 1, description: 'First line to read (1-based, default 1)' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `Lines to read (default ${DEFAULT_LIMIT})` },
    },
    required: ['path'],
  },
  async run(args, ctx): Promise<ReadFileResult> {
    const target = await confineToolPath(ctx, requiredString(args, 'path'));
    const offset = optionalInteger(args, 'offset', 1) ?? 1;
    const limit = Math.min(optionalInteger(args, 'limit', 1) ?? DEFAULT_LIMIT, MAX_LIMIT);
    const bytes = await readWorkspaceFile(target);
    if (looksBinary(bytes)) throw new ToolError(`${target.relative} looks like a binary file; inspect it with terminal (file, xxd | head)`);
    const lines = splitLines(bytes.toString('utf8'));
    if (lines.length > 0 && offset > lines.length) {
      throw new ToolError(`offset ${offset} is past the end of ${target.relative}, which has ${lines.length} lines`);
    }
    let content = '';
    let next = offset;
    const end = Math.min(lines.length, offset - 1 + limit);
    while (next <= end) {
      const numbered = `${String(next).padStart(6)}|${clip(lines[next - 1] ?? '')}\n`;
      // The window also ends where the context's output budget does (at least one line is shown).
      if (next > offset && Buffer.byteLength(content) + Buffer.byteLength(numbered) > ctx.maxOutputBytes) break;
      content += numbered;
      next += 1;
    }
    return next <= lines.length ? { content, total_lines: lines.length, next_offset: next } : { content, total_lines: lines.length };
  },
};

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

function clip(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} of ${line.length} characters]`;
}
