// Usage errors in the words of the command line typed, where yargs' own would confuse: an unknown option
// is named once, as typed (yargs lists `output-fil, outputFil`), with the nearest option there is; a
// number option given a word names the word (yargs makes it NaN, which a later check printed).

/** Levenshtein distance: the fewest single-character edits that turn a into b. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * yargs' "Unknown argument(s): a, aCamel" as `unknown option --a (did you mean --b?)`: the camelCase copies
 * yargs adds are left out, a name typed as an option gets its dashes, and the nearest known option is
 * suggested when it is close. Other messages are returned as they are.
 */
export function unknownArgumentsMessage(message: string, known: readonly string[], tokens: readonly string[]): string {
  const listed = /^Unknown arguments?: (.*)$/.exec(message)?.[1];
  if (listed === undefined) return message;
  const names = listed.split(', ');
  const typed = names.filter((name) => !(/[A-Z]/.test(name) && names.includes(kebab(name))));
  const asOption = (name: string): string => {
    const dashes = name.length === 1 ? '-' : '--';
    return tokens.some((t) => t === `${dashes}${name}` || t.startsWith(`${dashes}${name}=`)) ? `${dashes}${name}` : name;
  };
  const shown = typed.map(asOption);
  const options = known.filter((name) => name.length > 1 && !/[A-Z]/.test(name));
  const suggestions = typed.flatMap((name) => {
    const [best] = options
      .map((option) => ({ option, distance: editDistance(name, option) }))
      .filter(({ option, distance }) => distance <= Math.max(2, Math.floor(name.length / 3)) || isPrefix(name, option))
      .sort((a, b) => a.distance - b.distance);
    return best === undefined ? [] : [`--${best.option}`];
  });
  const what = shown.every((name) => name.startsWith('-')) ? (shown.length === 1 ? 'unknown option' : 'unknown options') : 'unknown arguments';
  return `${what} ${shown.join(', ')}${suggestions.length > 0 ? ` (did you mean ${suggestions.join(', ')}?)` : ''}`;
}

/** The message for a number option given something that is not a number, or undefined when there is none. */
export function notANumberMessage(args: object, tokens: readonly string[]): string | undefined {
  const notNumbers = Object.entries(args)
    .filter(([key, value]) => key !== '_' && typeof value === 'number' && Number.isNaN(value))
    .map(([key]) => key);
  const key = notNumbers.find((name) => name.length > 1 && !/[A-Z]/.test(name));
  if (key === undefined) return undefined;
  // yargs sets NaN on every alias of the option: a one-letter one is a spelling the value may follow.
  const spellings = [`--${key}`, ...notNumbers.filter((name) => name.length === 1).map((name) => `-${name}`)];
  const at = tokens.findIndex((token) => spellings.includes(token) || token.startsWith(`--${key}=`));
  const token = tokens[at];
  const raw = token === undefined ? undefined : token.startsWith(`--${key}=`) ? token.slice(key.length + 3) : tokens[at + 1];
  return `--${key} must be a number, got ${raw === undefined ? 'no number' : `'${raw}'`}`;
}

/** One name begins the other, and the shorter is long enough to mean something (--output-fil, --output). */
function isPrefix(a: string, b: string): boolean {
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  return shorter.length >= 4 && longer.startsWith(shorter);
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
