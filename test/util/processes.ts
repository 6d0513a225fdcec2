// Processes still running that belong to a directory a test made (their working directory is in it, or
// their command line or environment names it: a pipeline's stages, an endpoint, the tools they ran), or
// whose command line holds a marker (what escaped a sandbox).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export function processesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir) || environ.includes(dir)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`);
    } catch {
      // Exited meanwhile (or a zombie, which has no working directory): not running.
    }
  }
  return found;
}

/** Processes of this machine whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}
