// The environment of every process a tool starts. Requirement F: the agent's commands must never
// receive the API key, nor any other secret of the user. An allow-list, not a deny-list: no list of
// secret-looking names is ever complete (DB_PASS, API_AUTH, GH_PAT, LC_ADV_TOKEN), so a tool process
// gets a fixed PATH, its workspace as HOME and TMPDIR, the locale only when it looks like one, the
// terminal type and the time zone, the variables the user names with --tool-env, and what the prompt
// row explicitly gives it. Nothing else of hermes-generate's environment. A value that holds a secret
// (the resolved key, a secret header value: any form redact knows) is dropped even then (a key pasted
// into a row's env, or passed with --tool-env).
import { holdsSecret } from '@hermes-datagen/core';

/** Docker's default PATH: the system's programs, never a directory of the user's. */
export const TOOL_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The locale variables passed on, each only with a locale-shaped value (C, POSIX, en_US.UTF-8, de_DE@euro). */
const LOCALE_VARIABLES: readonly string[] = ['LANG', 'LC_ALL', 'LC_CTYPE'];
const LOCALE_VALUE = /^(?:C|POSIX|[a-z]{2,3}(?:_[A-Z]{2})?)(?:\.[A-Za-z0-9-]{1,16})?(?:@[a-z]{1,16})?$/;
/** A terminal type (xterm-256color) or a time zone (Europe/Paris, UTC, :/etc/localtime): short words, no spaces. */
const TERM_VALUE = /^[A-Za-z0-9._+-]{1,40}$/;
const TZ_VALUE = /^:?[A-Za-z0-9._+\-/]{1,64}$/;

/** Where the docker CLI of --sandbox docker finds its daemon: given to that CLI only, never to a container. */
export const DOCKER_CLIENT_VARIABLES: readonly string[] = ['DOCKER_HOST', 'DOCKER_CONTEXT', 'DOCKER_CONFIG', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY'];

export interface ToolEnvOptions {
  /** The prompt's workspace: the tools' HOME and TMPDIR. */
  workspace?: string;
  /** Variables the prompt row sets for its tools (its `env`); they win over the passed ones. */
  rowEnv?: Readonly<Record<string, string>>;
  /** Names of hermes-generate's variables passed on as they are (--tool-env NAME). */
  passed?: readonly string[];
  /** Also pass the docker CLI's variables (--sandbox docker: the CLI, not the container, gets the env). */
  docker?: boolean;
  /**
   * Secret values besides the registered ones (core's registerSecret): any variable whose value holds
   * one, in any form, is dropped.
   */
  secretValues?: readonly string[];
}

export function toolEnv(parent: Readonly<Record<string, string | undefined>>, options: ToolEnvOptions = {}): Record<string, string> {
  const env: Record<string, string> = {};
  const take = (name: string, value: string | undefined): void => {
    if (value === undefined || holdsSecret(value, options.secretValues)) return;
    env[name] = value;
  };
  take('PATH', TOOL_PATH);
  // The docker CLI is the user's own client, not the tool (which gets no variable of it): it finds its config in the user's HOME.
  if (options.docker) take('HOME', parent['HOME']);
  else if (options.workspace !== undefined && options.workspace !== '') {
    take('HOME', options.workspace);
    take('TMPDIR', options.workspace);
  }
  for (const name of LOCALE_VARIABLES) if (LOCALE_VALUE.test(parent[name] ?? '')) take(name, parent[name]);
  if (TERM_VALUE.test(parent['TERM'] ?? '')) take('TERM', parent['TERM']);
  if (TZ_VALUE.test(parent['TZ'] ?? '')) take('TZ', parent['TZ']);
  for (const name of [...(options.docker ? DOCKER_CLIENT_VARIABLES : []), ...(options.passed ?? [])]) take(name, parent[name]);
  for (const [name, value] of Object.entries(options.rowEnv ?? {})) take(name, value);
  return env;
}
