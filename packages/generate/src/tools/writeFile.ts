// write_file: creates or overwrites a file in the workspace, with any missing parent directories.
import { requiredString } from './args.js';
import { confineToolPath } from './confine.js';
import type { AgentTool } from './types.js';
import { writeWorkspaceFile } from './workspaceFiles.js';

export interface WriteFileResult {
  bytes_written: number;
  dirs_created: boolean;
}

export const writeFileTool: AgentTool = {
  name: 'write_file',
  toolset: 'file',
  description: 'Write content to a file in the workspace, replacing it if it exists and creating parent directories as needed.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace' },
      content: { type: 'string', description: 'The complete new file content' },
    },
    required: ['path', 'content'],
  },
  async run(args, ctx): Promise<WriteFileResult> {
    const target = await confineToolPath(ctx, requiredString(args, 'path'));
    const { bytesWritten, dirsCreated } = await writeWorkspaceFile(target, requiredString(args, 'content'));
    return { bytes_written: bytesWritten, dirs_created: dirsCreated };
  },
};
