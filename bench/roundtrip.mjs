// Subject: the core streaming round trip (stdin -> readRecords with trajectory schema validation ->
// JsonlWriter -> stdout), through the built core. Every CLI's input and output path is this one.
import { JsonlWriter, readRecords } from '../packages/core/dist/index.js';

const writer = await JsonlWriter.open(undefined, process.stdout, process.cwd());
for await (const batch of readRecords([], process.stdin, process.cwd(), { schema: 'trajectory', onError: 'fail' })) {
  for (const record of batch) await writer.write(record.value);
}
await writer.close();
