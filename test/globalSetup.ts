// End-to-end tests spawn the built bins: bring dist/ up to date once before any test runs
// (incremental, so a no-op when nothing changed).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-b'], { cwd: root, stdio: 'inherit' });
}
