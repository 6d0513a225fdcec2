// Peak resident memory of this process, for --stats-out and benchmarks.
import { readFileSync } from 'node:fs';

/**
 * In MiB. Linux's VmHWM belongs to this program's own address space; getrusage's maxRSS is kept
 * across exec, so a process spawned by a big parent would report the parent's peak.
 */
export function peakRssMb(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Math.round(Number(match[1]) / 1024);
  } catch {
    // Not Linux: fall through to getrusage.
  }
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
