// Flag checks shared by the bench scripts: a bad flag ends the run with a message that says what to pass.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where a script's results file `name` goes: into --out DIR when given (a trial run), else bench/results/. */
export function resultsFile(out, name) {
  return join(out === undefined ? join(ROOT, 'bench', 'results') : resolve(out), name);
}

/** Writes a script's report to its results file, creating the directory. */
export function writeResults(path, report) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

/** A path as a report line shows it: from the repository root when it is inside it. */
export function shownPath(path) {
  const inRoot = relative(ROOT, path);
  return inRoot.startsWith('..') ? path : inRoot;
}

/** The whole number in `text` (the value given to `flag`), between min and max. */
export function wholeNumber(flag, text, min, max = Number.MAX_SAFE_INTEGER) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    exitWithUsage(`${flag} takes a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`} (got ${JSON.stringify(text)})`);
  }
  return value;
}

export function exitWithUsage(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

/**
 * The flags of a bench script (node:util parseArgs `options`), with --help printing `usage` and a
 * bad flag ending the run with the message and the usage.
 */
export function parseFlags(options, usage) {
  let values;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', default: false } } }));
  } catch (err) {
    exitWithUsage(`${err.message}\n${usage}`);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values;
}
