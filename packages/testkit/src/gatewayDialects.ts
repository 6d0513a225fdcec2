// How the endpoint answers as real gateways do when they refuse a request (core gatewayErrors.ts has the
// table of what each answer means): OpenAI's billing 429, LiteLLM's UnsupportedParamsError for a
// parameter its deployment does not take, and a served model other than the one asked for (a gateway's
// fallback). The bodies are the gateways' own (docs/gateway-errors.md cites where each came from).

export interface GatewayDialectOptions {
  /** Every chat completion gets OpenAI's 429 insufficient_quota ("check your plan and billing details"). */
  readonly insufficientQuota?: boolean | undefined;
  /** Request parameters (top-level keys such as reasoning_effort, tools) answered with LiteLLM's 400 UnsupportedParamsError. */
  readonly rejectParams?: readonly string[] | undefined;
  /** The reply's `model`: what the gateway says it served, in place of the model asked for. */
  readonly servedModel?: string | undefined;
}

export interface Refusal {
  readonly status: number;
  readonly body: unknown;
}

/** OpenAI's answer for an account without quota (as quoted in Pythagora-io/gpt-pilot#340). */
export const INSUFFICIENT_QUOTA_BODY = {
  error: {
    message:
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
    type: 'insufficient_quota',
    param: null,
    code: 'insufficient_quota',
  },
};

/** LiteLLM proxy's 400 for a parameter the deployment does not support (as quoted in BerriAI/litellm#10108 and #11921). */
export function unsupportedParamsBody(params: readonly string[], model: string): unknown {
  const listed = params.map((name) => `'${name}'`).join(', ');
  return {
    error: {
      message: `litellm.UnsupportedParamsError: openai does not support parameters: [${listed}], for model=${model}. To drop these, set \`litellm.drop_params=True\` or for proxy:\n\n\`litellm_settings:\n drop_params: true\`\n`,
      type: 'None',
      param: 'None',
      code: '400',
    },
  };
}

/** The refusal a chat-completion request (the names of the parameters it sends) gets under these options, or undefined when it is answered. */
export function gatewayRefusal(options: GatewayDialectOptions, sent: readonly string[], model: string): Refusal | undefined {
  if (options.insufficientQuota === true) return { status: 429, body: INSUFFICIENT_QUOTA_BODY };
  const rejected = (options.rejectParams ?? []).filter((name) => sent.includes(name));
  if (rejected.length > 0) return { status: 400, body: unsupportedParamsBody(rejected, model) };
  return undefined;
}
