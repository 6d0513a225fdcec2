// The real gateway bodies of the gateway-error table (fixtures/gateway-errors/dialects.json), each with
// the source it was taken from.
import { readFileSync } from 'node:fs';
import { REPO_ROOT } from './cli.js';

export interface DialectFixture {
  readonly dialect: string;
  readonly gateway: string;
  readonly status: number;
  readonly body: unknown;
  readonly source: string;
  readonly kind: string;
}

export const DIALECT_FIXTURES = JSON.parse(readFileSync(`${REPO_ROOT}fixtures/gateway-errors/dialects.json`, 'utf8')) as DialectFixture[];
