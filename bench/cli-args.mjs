// Flag checks shared by the bench scripts: a bad flag ends the run with a message that says what to pass.
import { parseArgs } from 'node:util';

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
