// Tools signal an expected failure (bad arguments, a path outside the workspace, a missing file) by
// throwing ToolError; executeTool is the single funnel that turns it into the `{"error": ...}` result
// the model reads. Its message is written for the model: it says what went wrong and what to do.
export class ToolError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** The `code` of a Node system error (ENOENT, EISDIR, ...), if the value has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return undefined;
}
