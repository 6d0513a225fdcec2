// The environment of every process a tool starts. Requirement F: the agent's commands must never
// receive the API key, nor any other secret of the user. An allow-list, not a deny-list: no list of
// secret-looking names is ever complete (DB_PASS, API_AUTH, GH_PAT), so a tool process gets only
// what a program needs to run (where programs are, the home directory, the locale, the terminal
// type, the time zone) and what the prompt row explicitly gives it. A value that contains the
// resolved key is dropped even then (a key pasted into a row's env, or an odd PATH).

/**
 * The variables passed on from hermes-generate's own environment, when set. The DOCKER_ ones say
 * where the docker CLI of --sandbox docker finds its daemon; locations, not secrets, and the
 * container itself gets no variable of the host.
 */
export const PASSED_VARIABLES: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
];
/** Locale categories (LC_ALL, LC_CTYPE, ...) are passed on as well. */
const LOCALE_PREFIX = 'LC_';

export interface ToolEnvOptions {
  /** Variables the prompt row sets for its tools (its `env`); they win over the passed ones. */
  rowEnv?: Readonly<Record<string, string>>;
  /**
   * Secret values (the resolved API key): any variable whose value contains one is dropped. Only values
   * that can be secrets belong here: a placeholder key (x, EMPTY) would drop TERM=xterm for nothing.
   */
  secretValues?: readonly string[];
}

export function toolEnv(parent: Readonly<Record<string, string | undefined>>, options: ToolEnvOptions = {}): Record<string, string> {
  // Why trim: a key read from a .env file may carry the trailing newline the variable still holds.
  const secrets = (options.secretValues ?? []).map((value) => value.trim()).filter((value) => value !== '');
  const env: Record<string, string> = {};
  const take = (name: string, value: string | undefined): void => {
    if (value === undefined || secrets.some((secret) => value.includes(secret))) return;
    env[name] = value;
  };
  for (const [name, value] of Object.entries(parent)) {
    if (PASSED_VARIABLES.includes(name) || name.startsWith(LOCALE_PREFIX)) take(name, value);
  }
  for (const [name, value] of Object.entries(options.rowEnv ?? {})) take(name, value);
  return env;
}
