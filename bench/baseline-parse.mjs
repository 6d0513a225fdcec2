// Baseline (a): split stdin into lines, JSON.parse each, write each original line to stdout.
// The upper bound for a CLI that parses every record and passes lines through unchanged.
import { StdoutLines, stdinLines } from './sync-stdio.mjs';

const out = new StdoutLines();
for (const lines of stdinLines()) {
  for (const line of lines) {
    JSON.parse(line.toString('utf8'));
    out.bytes(line);
  }
}
out.flush();
