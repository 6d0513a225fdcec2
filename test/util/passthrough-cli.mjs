#!/usr/bin/env node
// A minimal stream CLI over core (read -> validate -> write the line unchanged), used by the core tests
// to exercise the shared I/O conventions in-process and as a real process.
import { defineCommand, main } from '@hermes-datagen/core';
import { pathToFileURL } from 'node:url';

export const spec = {
  name: 'hermes-passthrough',
  summary: 'Pass records through unchanged (core test aid).',
  commands: [
    defineCommand({
      command: '$0 [files..]',
      describe: 'validate and pass records through',
      stream: true,
      options: (y) =>
        y.option('schema', { type: 'string', describe: 'schema to validate against' }).option('rewrite', { type: 'boolean', describe: 're-serialise records' }),
      run: async (args, ctx) => {
        const out = await ctx.openOutput();
        for await (const batch of ctx.readRecords({ schema: args.schema, tombstones: true })) {
          for (const record of batch) {
            if (args.rewrite) await out.write(record.value);
            else await out.writeLine(record.bytes);
          }
        }
      },
    }),
  ],
};

if (import.meta.url === pathToFileURL(process.argv[1]).href) main(spec);
