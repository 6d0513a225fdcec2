// Which limit a finished tool command ran into, by mechanism: a prompt's cgroup counts its hits, an
// rlimit shows only in what the programs said. The real processes are in sandbox.test.ts and
// promptCgroups.test.ts; here every branch of the judgement, including those that must say nothing.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_LIMITS, limitExceeded, parseSize, rlimitArgs } from '@hermes-datagen/generate/internal/tools/toolLimits.js';

const ran = (output: string, exitCode: number | null, oomKills = 0, forkFailures = 0) => ({
  output,
  exitCode,
  timedOut: false,
  aborted: false,
  cgroupEvents: { oomKills, forkFailures },
});
const perPrompt = { maxProcs: 40, memoryBytes: 128 * 1024 ** 2 };

describe('limitExceeded', () => {
  it("under a prompt's cgroup names the OOM kill and the refused forks it counted, with the flags", () => {
    expect(limitExceeded(ran('', 137, 1), DEFAULT_TOOL_LIMITS, perPrompt)).toMatch(
      /^a process was killed by the out-of-memory killer: this prompt's tool processes together reached their memory limit of 128 MiB \(--tool-memory, a cgroup per prompt\)/,
    );
    expect(limitExceeded(ran('', 0, 0, 3), DEFAULT_TOOL_LIMITS, perPrompt)).toMatch(
      /^this prompt's tool processes together reached their limit of 40 processes \(--tool-max-procs, a cgroup per prompt/,
    );
    // A kernel without pids.events: the shell's words.
    expect(limitExceeded(ran('sh: 1: Cannot fork', 2), DEFAULT_TOOL_LIMITS, perPrompt)).toMatch(
      /limit of 40 processes \(--tool-max-procs, a cgroup per prompt/,
    );
    // Words of an allocation that failed, without an OOM kill, are the program's own business there.
    expect(limitExceeded(ran('MemoryError', 1), DEFAULT_TOOL_LIMITS, perPrompt)).toBeUndefined();
    expect(limitExceeded(ran('fine', 0), DEFAULT_TOOL_LIMITS, perPrompt)).toBeUndefined();
  });

  it('under rlimits judges by the exit and the words, and says nothing where no rlimit is set', () => {
    expect(limitExceeded(ran('', 128 + 24), DEFAULT_TOOL_LIMITS)).toMatch(/CPU time limit of 60 s \(--tool-cpu-seconds\)/);
    expect(limitExceeded(ran('bash: fork: retry: Resource temporarily unavailable', 0), DEFAULT_TOOL_LIMITS)).toMatch(
      /^the command reached the sandbox's limit of 256 processes \(--tool-max-procs\)/,
    );
    expect(limitExceeded(ran('MemoryError', 1), DEFAULT_TOOL_LIMITS)).toMatch(/limit of 2 GiB per process \(--tool-memory\)/);
    // A grep through logs that found the words and succeeded hit nothing.
    expect(limitExceeded(ran('out of memory', 0), DEFAULT_TOOL_LIMITS)).toBeUndefined();
    expect(limitExceeded(ran('MemoryError', 1), undefined)).toBeUndefined();
  });
});

describe('rlimitArgs', () => {
  it('sets all three rlimits, or only CPU time where a cgroup bounds processes and memory, and none without prlimit', () => {
    expect(rlimitArgs(DEFAULT_TOOL_LIMITS, '/usr/bin/prlimit')).toEqual(['/usr/bin/prlimit', '--nproc=256', `--data=${2 * 1024 ** 3}`, '--cpu=60:65', '--']);
    expect(rlimitArgs(DEFAULT_TOOL_LIMITS, '/usr/bin/prlimit', true)).toEqual(['/usr/bin/prlimit', '--cpu=60:65', '--']);
    expect(rlimitArgs(DEFAULT_TOOL_LIMITS, 'prlimit')).toEqual([]);
  });

  it('parses sizes', () => {
    expect(parseSize('512m')).toBe(512 * 1024 ** 2);
    expect(parseSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('lots')).toBeUndefined();
  });
});
