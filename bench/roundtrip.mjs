// Subject: the core streaming round trip (stdin -> readRecords with trajectory schema validation ->
// JsonlWriter -> stdout), through the built core: the input and output path of every CLI (stdin as the
// runner passes it: the process's own, read from its file descriptor when that is a file).
import { JsonlWriter, readRecords } from '../packages/core/dist/index.js';

const writer = await JsonlWriter.open(undefined, process.stdout, process.cwd());
for await (const batch of readRecords([], undefined, process.cwd(), { schema: 'trajectory', onError: 'fail' })) {
  for (const record of batch) await writer.write(record.value);
}
await writer.close();
