// The endpoint's gateway dialects: OpenAI's billing 429, LiteLLM's UnsupportedParamsError for a
// parameter sent (and only then), and a served model other than the one asked for.
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from './endpoint.js';

async function post(url: string, body: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const request = { model: 'asked-model', messages: [{ role: 'user', content: 'hi' }] };

describe('gateway dialects', () => {
  it('--insufficient-quota: 429 with OpenAI insufficient_quota', async () => {
    const target = await scriptedEndpoint({ insufficientQuota: true });
    const { status, json } = await post(target.url, request);
    expect(status).toBe(429);
    expect(json['error']).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
  });

  it('--reject-param: 400 UnsupportedParamsError naming the parameters sent, and only when they are', async () => {
    const target = await scriptedEndpoint({ rejectParams: ['reasoning_effort', 'tools'] });
    expect((await post(target.url, request)).status).toBe(200);
    const { status, json } = await post(target.url, { ...request, reasoning_effort: 'high' });
    expect(status).toBe(400);
    expect((json['error'] as { message: string }).message).toContain(
      "UnsupportedParamsError: openai does not support parameters: ['reasoning_effort'], for model=asked-model",
    );
  });

  it('--served-model: the reply names the model served', async () => {
    const asked = await post((await scriptedEndpoint()).url, request);
    expect(asked.json['model']).toBe('asked-model');
    const served = await post((await scriptedEndpoint({ servedModel: 'fallback-model' })).url, request);
    expect(served.json['model']).toBe('fallback-model');
  });

  it('a gateway_error fault sends the scripted status and body as they are', async () => {
    const body = { status: 'failure', message: 'x-portkey-provider header is required' };
    const target = await scriptedEndpoint({ script: { faults: [{ kind: 'gateway_error', status: 400, body }] } });
    expect(await post(target.url, request)).toEqual({ status: 400, json: body });
  });
});
