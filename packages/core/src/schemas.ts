// Validators for the JSON Schemas in schemas/ (the one declaration of every data shape), compiled
// ahead of time into validators.generated.ts (packages/core/scripts/compile-schemas.mjs): no schema
// compiler is loaded at start-up.
import type { Checkpoint, PromptRow, Reject, Tombstone, Trajectory } from './model.js';
import * as compiled from './validators.generated.js';

export const SCHEMA_NAMES = ['prompt', 'trajectory', 'tombstone', 'checkpoint', 'statistics', 'reject', 'failure', 'tool-registry', 'chat-line'] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** Returns null when the value is valid, else one line saying what is wrong and where in the value. */
export type Validator = (value: unknown) => string | null;

interface SchemaError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

interface CompiledValidator {
  (value: unknown): boolean;
  errors?: readonly SchemaError[] | null;
}

// A schema added to SCHEMA_NAMES without its compiled validator (npm run schemas) fails the build here.
const COMPILED: Record<SchemaName, CompiledValidator> = {
  prompt: compiled.prompt,
  trajectory: compiled.trajectory,
  tombstone: compiled.tombstone,
  checkpoint: compiled.checkpoint,
  statistics: compiled.statistics,
  reject: compiled.reject,
  failure: compiled.failure,
  'tool-registry': compiled.tool_registry,
  'chat-line': compiled.chat_line,
};

/** A parsed JSON object: each key's value is unknown until a schema says what it is. */
export type JsonObject = Record<string, unknown>;

/** The TypeScript types of the schemas' valid values (model.ts writes them from schemas/). */
export interface SchemaTypes {
  prompt: PromptRow;
  trajectory: Trajectory;
  tombstone: Tombstone;
  checkpoint: Checkpoint;
  reject: Reject;
}

/** The value, typed by the schema it is valid against, or what is wrong with it (as validator says). */
export function checkSchema<S extends keyof SchemaTypes>(name: S, value: JsonObject): { value: SchemaTypes[S] & JsonObject } | { problem: string } {
  const problem = validator(name)(value);
  return problem === null ? { value: value as SchemaTypes[S] & JsonObject } : { problem };
}

const validators = new Map<SchemaName, Validator>();

export function validator(name: SchemaName): Validator {
  let validate = validators.get(name);
  if (!validate) {
    const check = COMPILED[name];
    validate = (value: unknown): string | null => (check(value) ? null : describeErrors(name, check.errors ?? []));
    validators.set(name, validate);
  }
  return validate;
}

function describeErrors(name: SchemaName, errors: readonly SchemaError[]): string {
  const first = errors[0];
  return first ? `does not match the ${name} schema: ${describeError(first)}` : `does not match the ${name} schema`;
}

function describeError(error: SchemaError): string {
  const at = error.instancePath === '' ? 'the record' : error.instancePath;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${at} has unexpected key "${String(error.params['additionalProperty'])}"`;
    case 'required':
      return `${at} is missing required key "${String(error.params['missingProperty'])}"`;
    case 'enum':
      return `${at} must be one of ${JSON.stringify(error.params['allowedValues'])}`;
    default:
      return `${at} ${error.message ?? 'is invalid'}`;
  }
}
