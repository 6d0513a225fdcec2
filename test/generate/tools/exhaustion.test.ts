// Exhaustion as back-pressure: an attempt that meets EMFILE/ENFILE/EAGAIN is made again, until it gets
// through or its call is aborted; any other error or result is the answer at once.
import { describe, expect, it } from 'vitest';
import { isExhaustion, retryExhausted } from '@hermes-datagen/generate/internal/tools/exhaustion.js';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: too many open files`), { code });

describe('retryExhausted', () => {
  it('tries again after EMFILE, ENFILE and EAGAIN until the attempt gets through', async () => {
    const codes = ['EMFILE', 'ENFILE', 'EAGAIN'];
    let attempts = 0;
    let told = 0;
    const result = await retryExhausted(
      async () => {
        const code = codes[attempts++];
        if (code !== undefined) throw errno(code);
        return 'opened';
      },
      undefined,
      undefined,
      () => (told += 1),
    );
    expect(result).toBe('opened');
    expect(attempts).toBe(4);
    expect(told).toBe(3);
  });

  it('tries again while the result says exhausted (a spawn outcome), and returns the first that is not', async () => {
    const outcomes = [{ spawnError: 'EMFILE' }, { spawnError: 'EAGAIN' }, { spawnError: undefined }];
    let i = 0;
    const result = await retryExhausted(
      async () => outcomes[i++]!,
      undefined,
      (outcome) => outcome.spawnError !== undefined,
    );
    expect(result).toEqual({ spawnError: undefined });
  });

  it('gives any other error at once', async () => {
    let attempts = 0;
    await expect(
      retryExhausted(async () => {
        attempts += 1;
        throw errno('ENOENT');
      }, undefined),
    ).rejects.toThrow(/ENOENT/);
    expect(attempts).toBe(1);
  });

  it('once aborted, what the last attempt gave is the answer', async () => {
    const call = new AbortController();
    let attempts = 0;
    const result = retryExhausted(async () => {
      attempts += 1;
      if (attempts === 2) call.abort();
      throw errno('EMFILE');
    }, call.signal);
    await expect(result).rejects.toThrow(/EMFILE/);
    expect(attempts).toBe(2);
  });

  it('knows the codes', () => {
    expect(isExhaustion(errno('EMFILE'))).toBe(true);
    expect(isExhaustion(errno('ENOSPC'))).toBe(false);
    expect(isExhaustion(new Error('EMFILE'))).toBe(false);
  });
});
