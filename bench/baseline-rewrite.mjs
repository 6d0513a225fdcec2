// Baseline (b): split stdin into lines, JSON.parse each, write JSON.stringify of each record to stdout.
// The upper bound for a CLI that parses every record and writes it back re-serialised.
import { StdoutLines, stdinLines } from './sync-stdio.mjs';

const out = new StdoutLines();
for (const lines of stdinLines()) {
  for (const line of lines) out.string(JSON.stringify(JSON.parse(line.toString('utf8'))));
}
out.flush();
