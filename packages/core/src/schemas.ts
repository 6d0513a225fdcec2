// Validators for the JSON Schemas in schemas/ (the one declaration of every data shape), compiled
// ahead of time into validators.generated.ts (packages/core/scripts/compile-schemas.mjs): no schema
// compiler is loaded at start-up.
import * as compiled from './validators.generated.js';

export const SCHEMA_NAMES = ['prompt', 'trajectory', 'tombstone', 'checkpoint', 'statistics', 'reject', 'failure', 'tool-registry'] as const;
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

const validators = new Map<SchemaName, Validator>();

export function validator(name: SchemaName): Validator {
  let validate = validators.get(name);
  if (!validate) {
    const check = (compiled as unknown as Record<string, CompiledValidator>)[name.replace(/-/g, '_')];
    if (!check) throw new Error(`no compiled validator for schema ${name}: run \`npm run schemas\``);
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
