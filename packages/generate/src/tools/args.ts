// Readers for the arguments object a model sends. Models are loose with types (an integer sent as
// "10"), so integers and booleans accept their string spelling; anything else is a ToolError that
// names the argument and the expected type, so the model can correct its next call.
import { ToolError } from './toolError.js';

export type ToolArgs = Readonly<Record<string, unknown>>;

export function requiredString(args: ToolArgs, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') {
    throw new ToolError(`missing required argument "${name}" (a string)`);
  }
  return value;
}

export function optionalString(args: ToolArgs, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ToolError(`argument "${name}" must be a string`);
  return value;
}

export function optionalInteger(args: ToolArgs, name: string, min: number): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed < min) {
    throw new ToolError(`argument "${name}" must be an integer >= ${min}`);
  }
  return parsed;
}

export function optionalBoolean(args: ToolArgs, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ToolError(`argument "${name}" must be true or false`);
}
