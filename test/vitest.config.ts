import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = (name: string, entry: string): string => fileURLToPath(new URL(`../packages/${name}/src/${entry}`, import.meta.url));

// Unit tests import packages from source (no build needed); end-to-end tests spawn the built bins.
export default defineConfig({
  root,
  resolve: {
    alias: {
      '@hermes-datagen/core/endpoint': pkg('core', 'endpointIndex.ts'),
      '@hermes-datagen/core': pkg('core', 'index.ts'),
      '@hermes-datagen/testkit': pkg('testkit', 'index.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
