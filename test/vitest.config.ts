import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = (name: string, entry: string): string => fileURLToPath(new URL(`../packages/${name}/src/${entry}`, import.meta.url));
const CLIS = ['generate', 'filter', 'compress', 'stats', 'verify', 'to-atropos'];
const PACKAGES = ['core', 'testkit', ...CLIS];

// Unit tests import packages from source (no build needed); end-to-end tests spawn the built bins.
export default defineConfig({
  root,
  resolve: {
    // The first match wins, and a name also matches its subpaths: the longer names come first.
    alias: {
      // Modules a package does not export, for its tests only: @hermes-datagen/<name>/internal/<path>.js
      // is packages/<name>/src/<path>.ts (the packages' "./internal/*" export, for the type check).
      ...Object.fromEntries(PACKAGES.map((name) => [`@hermes-datagen/${name}/internal`, fileURLToPath(new URL(`../packages/${name}/src`, import.meta.url))])),
      '@hermes-datagen/core/endpoint': pkg('core', 'endpointIndex.ts'),
      '@hermes-datagen/core': pkg('core', 'index.ts'),
      '@hermes-datagen/testkit': pkg('testkit', 'index.ts'),
      ...Object.fromEntries(CLIS.map((name) => [`@hermes-datagen/${name}`, pkg(name, 'main.ts')])),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    // A guard against a hang, not a measure of speed: tests that run real processes take 20 s on a
    // loaded two-core machine, and a lower bound failed them there now and then.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
