import { describe, expect, it } from 'vitest';
import { parseScript } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';

describe('testkit rate_limit headers', () => {
  it("sends the rule's headers with the 429, and then no default retry-after; each request has its arrival time", async () => {
    const endpoint = await scriptedEndpoint({
      script: { faults: [{ kind: 'rate_limit', headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2s' } }] },
    });
    const before = Date.now();
    const response = await fetch(`${endpoint.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(response.headers.get('x-ratelimit-reset-requests')).toBe('2s');
    expect(response.headers.get('retry-after')).toBeNull();
    expect(endpoint.requests[0]!.receivedAt).toBeGreaterThanOrEqual(before);
  });

  it('refuses header values that are not strings, naming the place', () => {
    expect(() => parseScript({ faults: [{ kind: 'rate_limit', headers: { 'x-a': 1 } }] }, 'script.json')).toThrow(/faults\/0\/headers\/x-a/);
  });
});
