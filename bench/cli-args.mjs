// Flag checks shared by the bench scripts: a bad flag ends the run with a message that says what to pass.

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
