// The environment of every process a tool starts. Requirement F: the agent's commands must never
// receive the API key. Names that look secret go, whatever they hold; values that contain the
// resolved key go, whatever their name (a key copied into FOO or embedded in a URL).

/** Case-insensitive fragments; a variable whose name contains one of them is never passed on. */
export const SECRET_NAME_FRAGMENTS: readonly string[] = ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIAL'];

/** Key variables of the clients hermes-generate knows; dropped even if the fragments ever change. */
export const KNOWN_KEY_VARIABLES: readonly string[] = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'HERMES_API_KEY'];

export interface SafeEnvOptions {
  /** Further names to drop, such as the configured api_key_env (TAOTOKEN_API_KEY). */
  dropNames?: readonly string[];
  /** Secret values (the resolved API key): any variable whose value contains one is dropped. */
  secretValues?: readonly string[];
}

export function safeEnv(parent: Readonly<Record<string, string | undefined>>, options: SafeEnvOptions = {}): Record<string, string> {
  const dropped = new Set([...KNOWN_KEY_VARIABLES, ...(options.dropNames ?? [])].map((name) => name.toUpperCase()));
  // Why trim: a key read from a .env file may carry the trailing newline the variable still holds.
  const secrets = (options.secretValues ?? []).map((value) => value.trim()).filter((value) => value !== '');
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (dropped.has(upper)) continue;
    if (SECRET_NAME_FRAGMENTS.some((fragment) => upper.includes(fragment))) continue;
    if (secrets.some((secret) => value.includes(secret))) continue;
    env[name] = value;
  }
  return env;
}
