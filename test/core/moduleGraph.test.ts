// The packages' import graph, read from the sources: no module imports itself through others (a
// cycle, even type-only, makes two modules one), and each CLI reaches core only through its public
// entries and no other CLI, so core's index.ts and endpointIndex.ts are the whole vocabulary they share,
// and list nothing more (tests reach the rest as @hermes-datagen/core/internal/<module>.js).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../util/cli.js';

const PACKAGES = join(REPO_ROOT, 'packages');
const PUBLIC_CORE = new Set(['@hermes-datagen/core', '@hermes-datagen/core/endpoint']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every module a file names in an import, export ... from, or import(): type-only ones too. */
function importsOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((imported) => imported.fileName);
}

function parsed(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
}

/** The names a file imports from `specifier` with import { ... }. */
function namesImported(file: string, specifier: string): string[] {
  return parsed(file).statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || statement.moduleSpecifier.text !== specifier) return [];
    const bindings = statement.importClause?.namedBindings;
    return bindings && ts.isNamedImports(bindings) ? bindings.elements.map((element) => (element.propertyName ?? element.name).text) : [];
  });
}

/** The names an entry re-exports with export { ... } from. */
function namesExported(file: string): string[] {
  return parsed(file).statements.flatMap((statement) =>
    ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)
      ? statement.exportClause.elements.map((element) => element.name.text)
      : [],
  );
}

const packageNames = readdirSync(PACKAGES).filter((name) => sourceFiles(join(PACKAGES, name, 'src')).length > 0);
const files = packageNames.flatMap((name) => sourceFiles(join(PACKAGES, name, 'src')));

/** Each module's relative imports, as the .ts files they name. */
function localGraph(): Map<string, string[]> {
  return new Map(
    files.map((file) => [
      file,
      importsOf(file)
        .filter((name) => name.startsWith('.'))
        .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts')),
    ]),
  );
}

/** The cycles a depth-first walk meets, each as the path from a module back to itself. */
function cyclesIn(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (module: string): void => {
    state.set(module, 'open');
    path.push(module);
    for (const next of graph.get(module) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(module, 'done');
  };
  for (const module of graph.keys()) if (!state.has(module)) visit(module);
  return cycles;
}

describe('the import graph of packages/*/src', () => {
  it('reads every package', () => {
    expect(packageNames).toEqual(expect.arrayContaining(['core', 'generate', 'filter', 'compress', 'stats', 'verify', 'to-atropos', 'testkit']));
  });

  it('finds a cycle where there is one, type-only or not', () => {
    expect(
      cyclesIn(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      cyclesIn(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no cycle', () => {
    const cycles = cyclesIn(localGraph()).map((cycle) => cycle.map((file) => relative(PACKAGES, file)).join(' -> '));
    expect(cycles).toEqual([]);
  });

  it("reaches core only through its public entries, and no CLI imports another's", () => {
    const wrong = packageNames
      .filter((name) => name !== 'core')
      .flatMap((name) => {
        const src = join(PACKAGES, name, 'src');
        return sourceFiles(src).flatMap((file) =>
          importsOf(file)
            .filter((imported) =>
              imported.startsWith('.')
                ? !resolve(dirname(file), imported).startsWith(`${src}/`)
                : imported.startsWith('@hermes-datagen/') && !PUBLIC_CORE.has(imported),
            )
            .map((imported) => `${relative(PACKAGES, file)} imports ${imported}`),
        );
      });
    expect(wrong).toEqual([]);
  });

  it("lists core's public entries by name (no export *), each name one that a package outside core imports", () => {
    const entries = [
      ['@hermes-datagen/core', 'index.ts'],
      ['@hermes-datagen/core/endpoint', 'endpointIndex.ts'],
    ] as const;
    for (const [specifier, entry] of entries) {
      const file = join(PACKAGES, 'core', 'src', entry);
      expect(readFileSync(file, 'utf8')).not.toMatch(/export \*/);
      const imported = new Set(
        files.filter((source) => !source.startsWith(join(PACKAGES, 'core', 'src'))).flatMap((source) => namesImported(source, specifier)),
      );
      expect(namesExported(file).filter((name) => !imported.has(name))).toEqual([]);
    }
  });
});
