// The shell examples of README.md and docs/*.md as the README test (test/e2e/readme.test.ts) runs them:
// which blocks run, which are only checked, which quote an output; the options each one passes to a
// hermes-* bin; and whether an output the Markdown quotes is in what the command printed.
// The markers are documented in docs/testing.md.

/** The line before a shell block that needs a real endpoint or a network: syntax and options checked, not run. */
export const NO_RUN_MARKER = '<!-- readme-test: no-run -->';
/** The line before a ```text block quoting the output of the shell block before it. */
export const OUTPUT_MARKER = '<!-- readme-test: output -->';
/** The line before a ```text block quoting what `make demo` prints (the README test runs the demo first). */
export const DEMO_OUTPUT_MARKER = '<!-- readme-test: output of make demo -->';

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'console']);

export interface ShellBlock {
  kind: 'shell';
  /** `README.md:123`: the file and the line of the opening fence. */
  place: string;
  /** The commands (for a console block: its `$ ` lines, without the prompt). */
  script: string;
  run: boolean;
}

export interface OutputBlock {
  kind: 'output';
  place: string;
  /** The block whose output it quotes: the previous shell block of the file, or the demo. */
  of: 'previous' | 'demo';
  text: string;
}

export type Block = ShellBlock | OutputBlock;

/** Every shell block and quoted output of one Markdown file, in order. A marker before any other block is an error. */
export function markdownBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)\s*$/.exec(lines[i] ?? '');
    if (fence === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    const place = `${file}:${start + 1}`;
    const marker = previousNonBlank(lines, start);
    const language = fence[1] ?? '';
    if (marker === OUTPUT_MARKER || marker === DEMO_OUTPUT_MARKER) {
      if (language !== 'text') throw new Error(`${place}: ${marker} must come before a \`\`\`text block, not \`\`\`${language}`);
      blocks.push({ kind: 'output', place, of: marker === OUTPUT_MARKER ? 'previous' : 'demo', text: body.join('\n') });
    } else if (SHELL_LANGUAGES.has(language)) {
      const script = language === 'console' ? consoleCommands(body) : body.join('\n');
      blocks.push({ kind: 'shell', place, script, run: marker !== NO_RUN_MARKER });
    } else if (marker === NO_RUN_MARKER) {
      throw new Error(`${place}: ${NO_RUN_MARKER} must come before a \`\`\`sh, \`\`\`bash or \`\`\`console block, not \`\`\`${language}`);
    }
  }
  return blocks;
}

function previousNonBlank(lines: readonly string[], index: number): string {
  for (let i = index - 1; i >= 0; i--) {
    const line = (lines[i] ?? '').trim();
    if (line !== '') return line;
  }
  return '';
}

/** A console block's commands: its `$ ` lines and their continuation lines; the printed lines are left out. */
function consoleCommands(body: readonly string[]): string {
  const commands: string[] = [];
  let continued = false;
  for (const line of body) {
    if (line.startsWith('$ ')) commands.push(line.slice(2));
    else if (continued) commands.push(line);
    else continue;
    continued = line.endsWith('\\');
  }
  return commands.join('\n');
}

export interface Invocation {
  /** e.g. hermes-stats */
  bin: string;
  /** The command word after the bin when there is one (merge, sql, doctor...). */
  command: string | undefined;
  options: string[];
  /** Whether it is called through npx (a bare hermes-* name is not on a new user's PATH). */
  npx: boolean;
}

/** The hermes-* calls of a shell script and the long options each passes (quoted strings and comments ignored). */
export function hermesInvocations(script: string): Invocation[] {
  const text = script
    .replace(/\\\n/g, ' ')
    .replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, ' ARG ')
    .replace(/(^|\s)#[^\n]*/g, '$1');
  const invocations: Invocation[] = [];
  for (const segment of text.split(/\|\||&&|[|;\n&()]|\$\(|`/)) {
    const words = segment.trim().split(/\s+/);
    const at = words.findIndex((w) => /^hermes-[a-z-]+$/.test(w));
    if (at < 0) continue;
    const rest = words.slice(at + 1);
    const first = rest[0];
    invocations.push({
      bin: words[at] ?? '',
      command: first !== undefined && /^[a-z][a-z-]*$/.test(first) ? first : undefined,
      options: rest.filter((w) => /^--[A-Za-z]/.test(w)).map((w) => w.split('=')[0] ?? w),
      npx: words[at - 1] === 'npx',
    });
  }
  return invocations;
}

/** The long options a --help text lists (its option column, aliases included). */
export function helpOptions(help: string): Set<string> {
  const options = new Set<string>();
  for (const line of help.split('\n')) {
    const column = /^\s+(?:-\w, )?(--[\w-]+(?:, --[\w-]+)*)/.exec(line)?.[1];
    if (column !== undefined) for (const option of column.split(', ')) options.add(option);
  }
  return options;
}

/** The options of an invocation its --help does not list (`--no-x` is yargs' negation of a listed `--x`). */
export function unknownOptions(invocation: Invocation, known: ReadonlySet<string>): string[] {
  return invocation.options.filter((option) => !known.has(option) && !(option.startsWith('--no-') && known.has(`--${option.slice(5)}`)));
}

/**
 * The lines of a quoted output that the actual output lacks. Each quoted line must be one of the printed
 * lines; `...` in a quoted line stands for any text (a line of only `...` marks lines left out), and what
 * differs every run is masked on both sides: durations (`16 s`, `3.2 ms`) and loopback ports.
 */
export function missingOutputLines(quoted: string, actual: string): string[] {
  const printed = actual.split('\n').map(normaliseOutputLine);
  return quoted
    .split('\n')
    .filter((line) => line.trim() !== '' && line.trim() !== '...')
    .filter((line) => {
      const pattern = new RegExp(`^${normaliseOutputLine(line).split('...').map(escapeRegExp).join('.*')}$`);
      return !printed.some((p) => pattern.test(p));
    });
}

function normaliseOutputLine(line: string): string {
  return line
    .trimEnd()
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, 'N s')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
