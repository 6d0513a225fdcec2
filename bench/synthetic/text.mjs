// Synthetic text for the corpus: prose, file paths, code, terminal output, web pages, browser snapshots.
// Varied enough that parsers, tokenizers and compressors see realistic material (paths, hashes,
// numbers, some non-ASCII), cheap enough to make 1.2 GB in well under a minute.

const WORDS = (
  'the a to of and in is it that for on with as this be by from at or an are not was can will if then ' +
  'file files directory path config script function module test tests output error errors value values ' +
  'result results command commands run running build install package version dependency server request ' +
  'response data database query table column index cache memory process thread user session token model ' +
  'agent tool call calls search page link image browser window button form input field line lines number ' +
  'check checks update updated create created write read parse parsed list string object array return ' +
  'first next last before after because so need should could would seems likely looks appears probably ' +
  'fix fixed issue bug failing passes passed missing found exists correct wrong expected actual instead ' +
  'python node npm pip git docker linux shell bash json yaml csv http https api endpoint port host local ' +
  'summary report details note plan step steps approach option options small large quick simple entire'
).split(' ');

const NAMES = 'app main utils config server client parser loader handler models views routes schema cli worker queue cache store api auth db helpers'.split(
  ' ',
);
const DIRS = 'src lib tests scripts data docs app pkg internal tools build examples notebooks'.split(' ');
const EXTS = ['.py', '.py', '.py', '.ts', '.js', '.json', '.md', '.yaml', '.txt', '.sh', '.toml'];
const LONG_WORDS = WORDS.filter((w) => w.length > 3);
const NON_ASCII = ['café', 'naïve', 'résumé', '—', '…', '→', '✓', '°C', 'Zürich', 'São Paulo', '東京', 'µs', '±', '½'];

export function words(rng, count) {
  const out = new Array(count);
  for (let i = 0; i < count; i++) out[i] = rng.pick(WORDS);
  return out.join(' ');
}

export function sentence(rng, minWords = 6, maxWords = 18) {
  const s = words(rng, rng.int(minWords, maxWords));
  return s[0].toUpperCase() + s.slice(1) + (rng.chance(0.1) ? '?' : '.');
}

export function paragraph(rng, minSentences = 2, maxSentences = 5) {
  const count = rng.int(minSentences, maxSentences);
  const out = [];
  for (let i = 0; i < count; i++) out.push(sentence(rng));
  return out.join(' ');
}

/** Paragraphs separated by blank lines, about `chars` long. */
export function prose(rng, chars) {
  const out = [];
  let length = 0;
  while (length < chars) {
    const p = paragraph(rng);
    out.push(p);
    length += p.length + 2;
  }
  return out.join('\n\n');
}

export function identifier(rng) {
  return `${rng.pick(NAMES)}_${rng.pick(LONG_WORDS)}`;
}

export function fileName(rng) {
  return `${rng.pick(NAMES)}${rng.pick(EXTS)}`;
}

export function filePath(rng) {
  const depth = rng.int(0, 2);
  const parts = [];
  for (let i = 0; i < depth; i++) parts.push(rng.pick(DIRS));
  parts.push(fileName(rng));
  return parts.join('/');
}

export function url(rng) {
  const host = rng.pick([
    'docs.python.org',
    'developer.mozilla.org',
    'github.com',
    'stackoverflow.com',
    'en.wikipedia.org',
    'arxiv.org',
    'news.ycombinator.com',
    'example.com',
    'pypi.org',
    'nodejs.org',
  ]);
  return `https://${host}/${rng.pick(DIRS)}/${rng.pick(NAMES)}-${rng.int(1, 9999)}`;
}

/** Source code lines, Python-flavoured, `lines` long. */
export function code(rng, lines) {
  const out = [`import ${rng.pick(['os', 'sys', 'json', 're', 'time', 'pathlib', 'logging'])}`, `from ${rng.pick(NAMES)} import ${identifier(rng)}`, ''];
  while (out.length < lines) {
    const fn = identifier(rng);
    out.push(`def ${fn}(${rng.pick(['', 'path', 'data, limit=10', 'self, value', 'items', 'config: dict'])}):`);
    out.push(`    """${sentence(rng, 4, 10)}"""`);
    const body = rng.int(2, 7);
    for (let i = 0; i < body; i++) {
      out.push(
        rng.pick([
          `    ${identifier(rng)} = ${identifier(rng)}(${rng.int(0, 100)})`,
          `    if not ${identifier(rng)}:`,
          `        raise ValueError("${sentence(rng, 3, 7)}")`,
          `    for item in ${identifier(rng)}:`,
          `        total += item.get("${rng.pick(WORDS)}", 0)`,
          `    # ${sentence(rng, 4, 12)}`,
          `    logging.info("%s: %d", "${rng.pick(WORDS)}", ${rng.int(0, 9999)})`,
        ]),
      );
    }
    out.push(`    return ${identifier(rng)}`, '');
  }
  return out.slice(0, lines).join('\n');
}

function timeStamp(rng) {
  return `${String(rng.int(0, 23)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}`;
}

// One line of a command's output; `i` is the line number. Each kind looks like the real tool's output.
const OUTPUT_LINES = {
  ls: (rng) =>
    `${rng.pick(['-rw-r--r--', 'drwxr-xr-x', '-rwxr-xr-x'])} 1 user user ${String(rng.int(0, 99999)).padStart(6)} Jan ${String(rng.int(1, 28)).padStart(2)} ${timeStamp(rng).slice(0, 5)} ${fileName(rng)}`,
  pytest: (rng) =>
    rng.chance(0.85)
      ? `tests/test_${rng.pick(NAMES)}.py::test_${identifier(rng)} PASSED${' '.repeat(rng.int(1, 20))}[${String(rng.int(0, 100)).padStart(3)}%]`
      : `tests/test_${rng.pick(NAMES)}.py::test_${identifier(rng)} FAILED - AssertionError: assert ${rng.int(0, 50)} == ${rng.int(0, 50)}`,
  pip: (rng) =>
    rng.pick([
      `Collecting ${rng.pick(NAMES)}-${rng.pick(WORDS)}>=${rng.int(0, 5)}.${rng.int(0, 20)}`,
      `  Downloading ${rng.pick(NAMES)}-${rng.int(0, 5)}.${rng.int(0, 20)}.${rng.int(0, 9)}-py3-none-any.whl (${rng.int(10, 900)} kB)`,
      `     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ ${rng.int(10, 900)}.${rng.int(0, 9)}/${rng.int(10, 900)}.${rng.int(0, 9)} kB ${rng.int(1, 40)}.${rng.int(0, 9)} MB/s eta 0:00:00`,
      `Requirement already satisfied: ${rng.pick(WORDS)} in /usr/lib/python3/dist-packages (from ${rng.pick(NAMES)}) (${rng.int(1, 9)}.${rng.int(0, 30)})`,
    ]),
  git: (rng) => `${rng.hex(7)} ${rng.pick(['Fix', 'Add', 'Update', 'Remove', 'Refactor', 'Merge'])} ${words(rng, rng.int(3, 9))}`,
  grep: (rng) => `${filePath(rng)}:${rng.int(1, 900)}:    # TODO: ${sentence(rng, 3, 12)}`,
  npm: (rng) =>
    rng.pick([
      `npm warn deprecated ${rng.pick(NAMES)}@${rng.int(0, 9)}.${rng.int(0, 20)}.${rng.int(0, 9)}: ${sentence(rng, 4, 10)}`,
      `  ✓ ${words(rng, rng.int(3, 8))} (${rng.int(1, 400)} ms)`,
      `  ✗ ${words(rng, rng.int(3, 8))}`,
      `added ${rng.int(1, 900)} packages, and audited ${rng.int(100, 1500)} packages in ${rng.int(1, 59)}s`,
    ]),
  make: (rng) =>
    rng.pick([
      `gcc -O2 -Wall -c ${rng.pick(DIRS)}/${rng.pick(NAMES)}.c -o build/${rng.pick(NAMES)}.o`,
      `${rng.pick(DIRS)}/${rng.pick(NAMES)}.c:${rng.int(1, 900)}:${rng.int(1, 80)}: warning: unused variable '${identifier(rng)}' [-Wunused-variable]`,
      `[${String(rng.int(0, 100)).padStart(3)}%] Building C object CMakeFiles/${rng.pick(NAMES)}.dir/${rng.pick(NAMES)}.c.o`,
    ]),
  ps: (rng) =>
    `user     ${String(rng.int(1, 99999)).padStart(6)}  ${rng.int(0, 99)}.${rng.int(0, 9)}  ${rng.int(0, 20)}.${rng.int(0, 9)} ${String(rng.int(1000, 9999999)).padStart(8)} ${String(rng.int(1000, 999999)).padStart(7)} ?        S    ${timeStamp(rng).slice(0, 5)}   0:${String(rng.int(0, 59)).padStart(2, '0')} ${rng.pick(['python3', 'node', '/usr/bin/bash', 'sshd', 'nginx: worker process'])} ${filePath(rng)}`,
  log: (rng) =>
    `2026-01-${String(rng.int(10, 28)).padStart(2, '0')} ${timeStamp(rng)},${String(rng.int(0, 999)).padStart(3, '0')} ${rng.pick(['INFO', 'INFO', 'DEBUG', 'WARNING', 'ERROR'])} [${rng.pick(NAMES)}] ${sentence(rng, 4, 14)} id=${rng.hex(12)}`,
};

export const COMMANDS = [
  ['ls -la', 'ls'],
  ['python3 -m pytest -v', 'pytest'],
  ['pip install -r requirements.txt', 'pip'],
  ['git log --oneline -n 50', 'git'],
  ['grep -rn "TODO" .', 'grep'],
  ['npm install && npm test', 'npm'],
  ['make -j4', 'make'],
  ['ps aux', 'ps'],
  ['tail -n 200 logs/app.log', 'log'],
];

/** Output of a command of the given kind, about `chars` long. */
export function commandOutput(rng, kind, chars) {
  const lineOf = OUTPUT_LINES[kind];
  const out = [];
  let length = 0;
  while (length < chars) {
    const line = lineOf(rng);
    out.push(line);
    length += line.length + 1;
  }
  return out.join('\n');
}

/** Markdown a web extractor would return: headings, prose, lists, a little non-ASCII. */
export function webPage(rng, chars) {
  const out = [`# ${sentence(rng, 3, 8).slice(0, -1)}`];
  let length = out[0].length;
  while (length < chars) {
    const block = rng.weighted([
      [`## ${words(rng, rng.int(2, 6))}`, 1],
      [paragraph(rng).replace(/\.$/, ` (${rng.pick(NON_ASCII)}).`), 4],
      [Array.from({ length: rng.int(2, 5) }, () => `- ${sentence(rng, 3, 10)}`).join('\n'), 1],
      [`\`\`\`\n${code(rng, rng.int(3, 8))}\n\`\`\``, 1],
      [`[${words(rng, rng.int(1, 4))}](${url(rng)})`, 1],
    ]);
    out.push(block);
    length += block.length + 2;
  }
  return out.join('\n\n');
}

/** An accessibility-tree snapshot as browser tools return it. */
export function snapshot(rng, chars) {
  const out = [];
  let length = 0;
  let ref = 1;
  while (length < chars) {
    const indent = '  '.repeat(rng.int(0, 4));
    const line = `${indent}- ${rng.pick(['heading', 'link', 'button', 'textbox', 'paragraph', 'listitem', 'img', 'navigation'])} "${words(rng, rng.int(1, 7))}" [ref=e${ref++}]`;
    out.push(line);
    length += line.length + 1;
  }
  return out.join('\n');
}

export function nonAscii(rng) {
  return rng.pick(NON_ASCII);
}
