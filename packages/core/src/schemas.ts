// Validators built from the JSON Schemas in schemas/ (the one declaration of every data shape).
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

export const SCHEMA_NAMES = ['prompt', 'trajectory', 'tombstone', 'checkpoint', 'statistics', 'reject', 'tool-registry'] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** Returns null when the value is valid, else one line saying what is wrong and where in the value. */
export type Validator = (value: unknown) => string | null;

// src/ and dist/ both sit one level below the package, which sits two below the repository root.
const SCHEMA_DIR = new URL('../../../schemas/', import.meta.url);

let ajv: Ajv2020 | undefined;
const validators = new Map<SchemaName, Validator>();

export function schemaPath(name: SchemaName): string {
  return new URL(`${name}.schema.json`, SCHEMA_DIR).pathname;
}

export function loadSchema(name: SchemaName): Record<string, unknown> {
  return JSON.parse(readFileSync(schemaPath(name), 'utf8')) as Record<string, unknown>;
}

/** Compiled once per process, on first use: a CLI pays only for the schemas it needs. */
export function validator(name: SchemaName): Validator {
  let validate = validators.get(name);
  if (!validate) {
    ajv ??= new Ajv2020({ allErrors: false, strict: true });
    const compiled = ajv.compile(loadSchema(name));
    validate = (value: unknown): string | null => (compiled(value) ? null : describeErrors(name, compiled));
    validators.set(name, validate);
  }
  return validate;
}

function describeErrors(name: SchemaName, compiled: ValidateFunction): string {
  const first = (compiled.errors ?? [])[0];
  return first ? `does not match the ${name} schema: ${describeError(first)}` : `does not match the ${name} schema`;
}

function describeError(error: ErrorObject): string {
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
