// The endpoint flags and their --help, declared once for every command that calls a model.
import type { Argv } from 'yargs';

/** The endpoint flags, as yargs gives them to a command that spreads endpointOptions. */
export interface EndpointArgs {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  config?: string;
  envFile?: string;
  /** --header 'Name: value', repeatable. */
  header?: string[];
}

export const DEFAULT_API_KEY_ENV = 'HERMES_API_KEY';

const ENDPOINT_GROUP = 'Endpoint options:';

/** The endpoint flags, defined once: every command that calls a model adds them with this. */
export function endpointOptions<T>(y: Argv<T>) {
  return y
    .option('base-url', {
      type: 'string',
      describe: 'OpenAI-compatible base URL, e.g. https://gateway.example.com/api (default: $HERMES_BASE_URL, $OPENAI_BASE_URL, then --config)',
      group: ENDPOINT_GROUP,
    })
    .option('model', {
      type: 'string',
      describe: 'model id; provider/model picks a provider of --config (default: $HERMES_MODEL, then default_model)',
      group: ENDPOINT_GROUP,
    })
    .option('api-key-env', {
      type: 'string',
      describe: `NAME of the variable holding the API key, never the key itself (default: the provider's api_key_env, then ${DEFAULT_API_KEY_ENV}, then OPENAI_API_KEY)`,
      group: ENDPOINT_GROUP,
    })
    .option('config', {
      type: 'string',
      describe: 'YAML or JSON file with providers: {NAME: {base_url, api_key_env, type: openai, headers}} and default_model',
      group: ENDPOINT_GROUP,
    })
    .option('env-file', {
      type: 'string',
      describe: 'read variables from this .env file (never read unless named; exported variables win)',
      group: ENDPOINT_GROUP,
    })
    .option('header', {
      type: 'string',
      // One value per --header: a plain array option would take the dataset file after it as a header.
      array: true,
      nargs: 1,
      describe:
        "'Name: value' sent on every model request, e.g. 'x-portkey-provider: openai' (repeatable; over the provider's headers: in --config); the value of a secret one (a name with a part key, token, secret, auth…: x-api-key, x-portkey-virtual-key) is redacted like the key",
      group: ENDPOINT_GROUP,
    });
}

/** Environment entries for the --help of a CLI that calls a model. */
export const ENDPOINT_ENV_HELP: readonly (readonly [string, string])[] = [
  ['HERMES_BASE_URL', 'base URL of the OpenAI-compatible endpoint (OPENAI_BASE_URL if unset)'],
  ['HERMES_MODEL', 'model id'],
  [DEFAULT_API_KEY_ENV, 'API key, unless --api-key-env names another variable (OPENAI_API_KEY if unset)'],
];
