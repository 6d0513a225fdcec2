import { describe, expect, it } from 'vitest';
import { toolEnv } from '@hermes-datagen/generate/internal/tools/toolEnv.js';

describe('toolEnv', () => {
  const passed = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/user',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'xterm',
    TZ: 'UTC',
    DOCKER_HOST: 'unix:///run/user/1000/docker.sock',
  };
  const parent = {
    ...passed,
    // Names no deny-list catches: an allow-list passes none of them.
    DB_PASS: 'db-pass-1',
    API_AUTH: 'api-auth-2',
    GH_PAT: 'gh-pat-3',
    OPENAI_API_KEY: 'sk-openai',
    AWS_SECRET_ACCESS_KEY: 'aws',
    PLAIN_SETTING: 'plain',
    UNDEFINED_ONE: undefined,
  };

  it('passes on only the locations, locale, terminal and time zone', () => {
    expect(toolEnv(parent)).toEqual(passed);
  });

  it('adds what the row gives its tools, which wins over the passed value', () => {
    const env = toolEnv(parent, { rowEnv: { PROJECT_MODE: 'test', TZ: 'Europe/Paris' } });
    expect(env).toMatchObject({ PROJECT_MODE: 'test', TZ: 'Europe/Paris', PATH: '/usr/bin:/bin' });
    expect(env).not.toHaveProperty('PLAIN_SETTING');
  });

  it('drops any variable whose value holds the resolved key, passed or given by the row', () => {
    const env = toolEnv(
      { ...parent, HOME: '/home/sk-real-key-0123456789' },
      { rowEnv: { PROXY_URL: 'https://u:sk-real-key-0123456789@gw/' }, secretValues: ['sk-real-key-0123456789\n', '', '  '] },
    );
    expect(env).not.toHaveProperty('HOME');
    expect(env).not.toHaveProperty('PROXY_URL');
    expect(env).toHaveProperty('PATH');
  });
});
