import { describe, expect, it } from 'vitest';
import { executeTool } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { ToolProcesses } from '@hermes-datagen/generate/internal/tools/toolProcesses.js';
import type { ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';

describe('todo', () => {
  const context = (): ToolContext => ({
    workspace: '/nonexistent',
    env: {},
    processes: new ToolProcesses({ limit: 1, isolation: 'none' }),
    timeoutMs: 1000,
    maxOutputBytes: 1000,
    todo: { items: [] },
  });
  const todo = async (ctx: ToolContext, args: Record<string, unknown>): Promise<unknown> => JSON.parse(await executeTool('todo', args, ctx));

  it('replaces, merges and reads the list of one task', async () => {
    const ctx = context();
    expect(await todo(ctx, {})).toEqual({ todos: [], summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 } });
    await todo(ctx, {
      todos: [
        { id: '1', content: 'write tests', status: 'in_progress' },
        { id: 2, content: 'run them' },
      ],
    });
    expect(
      await todo(ctx, {
        todos: [
          { id: '1', status: 'completed' },
          { id: '3', content: 'ship' },
        ],
        merge: true,
      }),
    ).toEqual({
      todos: [
        { id: '1', content: 'write tests', status: 'completed' },
        { id: '2', content: 'run them', status: 'pending' },
        { id: '3', content: 'ship', status: 'pending' },
      ],
      summary: { total: 3, pending: 2, in_progress: 0, completed: 1, cancelled: 0 },
    });
    expect(await todo(ctx, { todos: [{ id: 'x', content: 'only this', status: 'cancelled' }] })).toMatchObject({
      todos: [{ id: 'x', content: 'only this', status: 'cancelled' }],
    });
    expect(ctx.todo.items).toEqual([{ id: 'x', content: 'only this', status: 'cancelled' }]);
  });

  it("keeps each task's list apart", async () => {
    const first = context();
    const second = context();
    await todo(first, { todos: [{ id: '1', content: 'a' }] });
    expect(await todo(second, {})).toMatchObject({ todos: [] });
  });

  it('refuses bad entries without changing the list', async () => {
    const ctx = context();
    await todo(ctx, { todos: [{ id: '1', content: 'keep me' }] });
    expect(await todo(ctx, { todos: [{ id: '1', status: 'done' }], merge: true })).toEqual({
      error: 'todos[0].status must be one of pending, in_progress, completed, cancelled',
    });
    expect(await todo(ctx, { todos: [{ id: '9' }], merge: true })).toEqual({ error: 'todo "9" is new and needs a content' });
    expect(
      await todo(ctx, {
        todos: [
          { id: 'a', content: 'x' },
          { id: 'a', content: 'y' },
        ],
      }),
    ).toEqual({ error: 'todo id "a" appears twice in todos; ids must be unique' });
    expect(await todo(ctx, { todos: 'buy milk' })).toEqual({ error: 'argument "todos" must be an array of {id, content, status}' });
    expect(ctx.todo.items).toEqual([{ id: '1', content: 'keep me', status: 'pending' }]);
  });
});
