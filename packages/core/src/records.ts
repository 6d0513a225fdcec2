// JSONL records from lines: parse, check the shape, validate, and apply the shared bad-input policy.
// This is the only place input lines are JSON.parsed, so every CLI rejects the same things the same way.
import { InputError, type Place } from './errors.js';
import { inputSources, readLines, type Line, type LineReaderOptions } from './lineReader.js';
import type { Readable } from 'node:stream';
import type { Reject, Tombstone } from './model.js';
import { isPlainObject } from './plainObject.js';
import { checkSchema, validator, type JsonObject, type SchemaName, type SchemaTypes } from './schemas.js';

export type OnError = 'fail' | 'skip';

/** The schemas whose records have a TypeScript type: a reader naming one yields records of that type. */
export type RecordSchema = keyof SchemaTypes;

/** A line read as a record: its value is a JSON object, validated against the schema the reader named. */
export type InputRecord<T = JsonObject> = DataRecord<T> | TombstoneRecord;

export interface DataRecord<T = JsonObject> extends RecordLine {
  readonly kind: 'record';
  readonly value: T;
}

/** A row with a `discarded` key, read when tombstones are accepted; validated with the tombstone schema. */
export interface TombstoneRecord extends RecordLine {
  readonly kind: 'tombstone';
  readonly value: Tombstone & JsonObject;
}

interface RecordLine {
  /** The line as read (decoded, without its line end and any BOM). */
  readonly raw: string;
  /**
   * The same line's bytes: `writer.writeLine(record.bytes)` passes it through unchanged and cheaply.
   * They may live in the reader's reused buffer: valid only until the next batch is asked for.
   */
  readonly bytes: Buffer;
  readonly place: Place;
}

/** The schema each record is validated against (none: any JSON object), and whether tombstone rows are read too. */
export interface ReadOptions {
  readonly schema?: SchemaName;
  /** Accept tombstone rows (validated with the tombstone schema) beside the main schema. */
  readonly tombstones?: boolean;
}

/** RunContext.readRecords: the records of the command's input, typed by the schema named (see readRecords). */
export interface RecordReader {
  <S extends RecordSchema>(options: {
    readonly schema: S;
    readonly tombstones: true;
  }): AsyncGenerator<(DataRecord<SchemaTypes[S] & JsonObject> | TombstoneRecord)[]>;
  <S extends RecordSchema>(options: { readonly schema: S; readonly tombstones?: false }): AsyncGenerator<DataRecord<SchemaTypes[S] & JsonObject>[]>;
  (options?: ReadOptions): AsyncGenerator<InputRecord[]>;
}

export interface RecordReaderOptions extends LineReaderOptions, ReadOptions {
  readonly onError: OnError;
  /** Receives every rejected line under --on-error skip (the runner writes them to --rejects). */
  readonly onReject?: (reject: Reject, place: Place) => void | Promise<void>;
}

/** Turns one decoded line into a record, or a reason why it is not one. */
function parseRecordLine(line: Extract<Line, { kind: 'text' }>, schema: SchemaName | undefined, tombstones: boolean): InputRecord | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (err) {
    const why = (err as Error).message;
    return {
      reason: line.lastWithoutNewline ? `invalid JSON in the last line, which has no newline (the file may be truncated): ${why}` : `invalid JSON: ${why}`,
    };
  }
  if (!isPlainObject(value)) {
    return { reason: `not a JSON object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})` };
  }
  const read = { raw: line.text, bytes: line.bytes, place: line.place };
  if (tombstones && 'discarded' in value) {
    const tombstone = checkSchema('tombstone', value);
    return 'problem' in tombstone ? { reason: tombstone.problem } : { ...read, kind: 'tombstone', value: tombstone.value };
  }
  const problem = schema === undefined ? null : validator(schema)(value);
  return problem === null ? { ...read, kind: 'record', value } : { reason: problem };
}

/**
 * Records of all inputs in order, in batches. Under `fail` the first bad line throws an InputError
 * naming its place (exit 3); under `skip` it goes to onReject and reading goes on. The schema named
 * validates each record, which is what types its value (SchemaTypes).
 */
export function readRecords<S extends RecordSchema>(
  operands: readonly string[],
  stdin: Readable | undefined,
  cwd: string,
  options: RecordReaderOptions & { readonly schema: S; readonly tombstones: true },
): AsyncGenerator<(DataRecord<SchemaTypes[S] & JsonObject> | TombstoneRecord)[]>;
export function readRecords<S extends RecordSchema>(
  operands: readonly string[],
  stdin: Readable | undefined,
  cwd: string,
  options: RecordReaderOptions & { readonly schema: S; readonly tombstones?: false },
): AsyncGenerator<DataRecord<SchemaTypes[S] & JsonObject>[]>;
export function readRecords(operands: readonly string[], stdin: Readable | undefined, cwd: string, options: RecordReaderOptions): AsyncGenerator<InputRecord[]>;
export async function* readRecords(
  operands: readonly string[],
  stdin: Readable | undefined,
  cwd: string,
  options: RecordReaderOptions,
): AsyncGenerator<InputRecord[]> {
  const tombstones = options.tombstones ?? false;
  for (const source of inputSources(operands, stdin, cwd)) {
    for await (const lines of readLines(source, options)) {
      let batch: InputRecord[] = [];
      for (const line of lines) {
        const parsed = line.kind === 'text' ? parseRecordLine(line, options.schema, tombstones) : line;
        if ('value' in parsed) {
          batch.push(parsed);
          if (batch.length === BATCH_RECORDS) {
            yield batch;
            batch = [];
          }
          continue;
        }
        // Records before the bad line reach the stage first, as from a line-at-a-time reader: their
        // output and rejects come before this line's reject or error.
        if (batch.length > 0) {
          yield batch;
          batch = [];
        }
        if (options.onError === 'fail') throw new InputError(parsed.reason, line.place);
        const reject: Reject =
          line.kind === 'text'
            ? { line: line.place.line, source: line.place.source, reason: parsed.reason, raw: line.text }
            : { line: line.place.line, source: line.place.source, reason: line.reason, raw: line.raw, ...(line.truncated ? { truncated: true } : {}) };
        await options.onReject?.(reject, line.place);
      }
      if (batch.length > 0) yield batch;
      if (options.signal?.aborted) return;
    }
  }
}

/** Records per batch: enough to amortise the generator's cost, few parsed records held at once. */
const BATCH_RECORDS = 16;
