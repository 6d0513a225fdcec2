// todo: the model's task list for the current prompt, kept in memory (ctx.todo) for the length of
// its agent loop. Without `todos` it returns the list; with `todos` it replaces the list, or with
// `merge: true` updates items by id and appends new ones.
import { optionalBoolean } from './args.js';
import { ToolError } from './toolError.js';
import type { AgentTool, TodoItem, TodoStatus } from './types.js';

const STATUSES: readonly TodoStatus[] = ['pending', 'in_progress', 'completed', 'cancelled'];

export interface TodoResult {
  todos: TodoItem[];
  summary: Record<TodoStatus, number> & { total: number };
}

export const todoTool: AgentTool = {
  name: 'todo',
  toolset: 'todo',
  workspaceFree: true,
  description:
    'Keep a task list for this task. Call without todos to read it. With todos, the list is replaced; with merge true, ' +
    'items are updated by id (only the fields given) and new ids are appended. Status: pending, in_progress, completed, cancelled.',
  parameters: {
    type: 'object',
    properties: {
      todos: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            content: { type: 'string' },
            status: { type: 'string', enum: [...STATUSES] },
          },
          required: ['id'],
        },
      },
      merge: { type: 'boolean', default: false },
    },
  },
  async run(args, ctx): Promise<TodoResult> {
    const merge = optionalBoolean(args, 'merge') ?? false;
    if (args.todos !== undefined && args.todos !== null) {
      if (!Array.isArray(args.todos)) throw new ToolError('argument "todos" must be an array of {id, content, status}');
      const updates = args.todos.map((entry: unknown, index: number) => readUpdate(entry, index));
      const ids = updates.map((update) => update.id);
      const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
      if (repeated !== undefined) throw new ToolError(`todo id "${repeated}" appears twice in todos; ids must be unique`);
      ctx.todo.items = merge ? merged(ctx.todo.items, updates) : updates.map(newItem);
    }
    return { todos: ctx.todo.items.map((item) => ({ ...item })), summary: summarise(ctx.todo.items) };
  },
};

interface TodoUpdate {
  id: string;
  content?: string;
  status?: TodoStatus;
}

function readUpdate(entry: unknown, index: number): TodoUpdate {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ToolError(`todos[${index}] must be an object {id, content, status}`);
  const { id, content, status } = entry as Record<string, unknown>;
  if ((typeof id !== 'string' || id.trim() === '') && typeof id !== 'number') throw new ToolError(`todos[${index}] needs an id (a string)`);
  if (content !== undefined && typeof content !== 'string') throw new ToolError(`todos[${index}].content must be a string`);
  if (status !== undefined && !STATUSES.includes(status as TodoStatus)) {
    throw new ToolError(`todos[${index}].status must be one of ${STATUSES.join(', ')}`);
  }
  return { id: String(id), ...(content === undefined ? {} : { content }), ...(status === undefined ? {} : { status: status as TodoStatus }) };
}

function newItem(update: TodoUpdate): TodoItem {
  if (update.content === undefined) throw new ToolError(`todo "${update.id}" is new and needs a content`);
  return { id: update.id, content: update.content, status: update.status ?? 'pending' };
}

function merged(items: readonly TodoItem[], updates: readonly TodoUpdate[]): TodoItem[] {
  const result = items.map((item) => ({ ...item }));
  for (const update of updates) {
    const existing = result.find((item) => item.id === update.id);
    if (existing === undefined) result.push(newItem(update));
    else Object.assign(existing, update);
  }
  return result;
}

function summarise(items: readonly TodoItem[]): TodoResult['summary'] {
  const summary = { total: items.length, pending: 0, in_progress: 0, completed: 0, cancelled: 0 };
  for (const item of items) summary[item.status] += 1;
  return summary;
}
