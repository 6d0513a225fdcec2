// End-to-end tests spawn the built bins: bring dist/ up to date once before any test runs
// (incremental, so a no-op when nothing changed).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  // While several packages are being edited at once, a developer may build only their own package.
  if (process.env['HERMES_TEST_NO_BUILD'] === '1') return;
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-b'], { cwd: root, stdio: 'inherit' });
}
