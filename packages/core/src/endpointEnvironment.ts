// Where each endpoint value comes from: the flag, the process environment over an --env-file, or the
// config file. Each value remembers its source, so errors and doctor can say which one to fix.
import type { EndpointConfig } from './configFile.js';
import type { Finding, Sourced } from './endpoint.js';
import type { EnvFile } from './envFile.js';
import { keyFingerprint } from './secrets.js';

/** The process environment over the --env-file's variables, remembering which one each came from. */
export class Environment {
  public readonly merged: Record<string, string>;

  public constructor(
    private readonly process: Readonly<Record<string, string | undefined>>,
    private readonly file: EnvFile | undefined,
  ) {
    this.merged = { ...file?.values };
    for (const [name, value] of Object.entries(process)) if (value !== undefined) this.merged[name] = value;
  }

  /** A variable's value; empty counts as unset, except through getRaw. */
  public get(name: string): Sourced<string> | undefined {
    const found = this.getRaw(name);
    return found && found.value !== '' ? found : undefined;
  }

  public getRaw(name: string): Sourced<string> | undefined {
    const value = this.merged[name];
    if (value === undefined) return undefined;
    const inProcess = this.process[name] !== undefined;
    return { value, origin: inProcess ? { source: 'env', name } : { source: 'env-file', name: `${name} in ${this.file?.path ?? ''}` } };
  }

  public overriddenFileValues(names: readonly string[]): Finding<'env-file-overridden'>[] {
    const file = this.file;
    if (!file) return [];
    return [...new Set(names)].flatMap((name) => {
      const exported = this.process[name];
      const inFile = file.values[name];
      if (exported === undefined || inFile === undefined || exported === inFile) return [];
      const shown = (value: string): string => (/KEY|TOKEN|SECRET/i.test(name) ? `key ${keyFingerprint(value)}` : JSON.stringify(value));
      return [
        {
          id: 'env-file-overridden' as const,
          message: `${name} is exported (${shown(exported)}) and also set in ${file.path} (${shown(inFile)}): the exported value wins; unset ${name} or update ${file.path} so that they agree`,
        },
      ];
    });
  }
}

export function fromFlag(flag: string, value: string | undefined): Sourced<string> | undefined {
  return value === undefined || value === '' ? undefined : { value, origin: { source: 'flag', name: flag } };
}

export function fromConfig(config: EndpointConfig | undefined, key: string, value: string | undefined): Sourced<string> | undefined {
  return config && value !== undefined && value !== '' ? { value, origin: { source: 'config', name: `${key} in ${config.path}` } } : undefined;
}

export function firstGiven<T>(...candidates: (Sourced<T> | undefined)[]): Sourced<T> | undefined {
  return candidates.find((c) => c !== undefined);
}

/** A warning when both OPENAI_* and ANTHROPIC_* variables are set, since the tools the agent runs may read either. */
export function competingVariables(env: Readonly<Record<string, string>>): Finding<'openai-and-anthropic'> | undefined {
  const set = (prefix: string): string[] =>
    Object.keys(env)
      .filter((name) => name.toUpperCase().startsWith(prefix) && env[name] !== '')
      .sort();
  const openai = set('OPENAI_');
  const anthropic = set('ANTHROPIC_');
  if (openai.length === 0 || anthropic.length === 0) return undefined;
  return {
    id: 'openai-and-anthropic',
    message: `both OPENAI_* (${openai.join(', ')}) and ANTHROPIC_* (${anthropic.join(', ')}) variables are set: tools that read either pick one unpredictably; choose one and unset the others`,
  };
}
