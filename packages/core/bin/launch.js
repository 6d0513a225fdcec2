// Starts a CLI from its built code, as every packages/*/bin script does. Plain JavaScript, not compiled,
// so that in a checkout that was never built (or after `make clean`) the bin says what to do instead of
// Node's stack trace for a missing module.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Runs main() of the built module at mainUrl; exits 2 with "not built" when that build is missing. */
export async function launch(name, mainUrl) {
  let module;
  try {
    module = await import(mainUrl);
  } catch (error) {
    const missing = error?.code === 'ERR_MODULE_NOT_FOUND' ? builtFileMissing(error, mainUrl) : undefined;
    if (missing === undefined) throw error;
    process.stderr.write(`${name}: not built: run \`make build\` (${missing} is missing)\n`);
    process.exit(2);
  }
  module.main();
}

/** The file of a package's dist/ that the import lacked, when that is what failed (not a missing dependency). */
function builtFileMissing(error, mainUrl) {
  const main = fileURLToPath(mainUrl);
  if (!existsSync(main)) return main;
  const named = /Cannot find module '([^']+)'/.exec(String(error.message))?.[1];
  return named !== undefined && /[\\/]dist[\\/]/.test(named) && !existsSync(named) ? named : undefined;
}
