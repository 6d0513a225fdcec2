import { describe, expect, it } from 'vitest';
import { registerSecret } from '@hermes-datagen/core/internal/secrets.js';
import { TOOL_PATH, toolEnv } from '@hermes-datagen/generate/internal/tools/toolEnv.js';

describe('toolEnv', () => {
  const parent = {
    PATH: '/home/user/.local/bin:/usr/bin:/bin',
    HOME: '/home/user',
    LANG: 'en_US.UTF-8',
    LC_ALL: 'C.UTF-8',
    LC_CTYPE: 'de_DE@euro',
    TERM: 'xterm-256color',
    TZ: 'Europe/Paris',
    DOCKER_HOST: 'unix:///run/user/1000/docker.sock',
    // Names no deny-list catches: an allow-list passes none of them.
    DB_PASS: 'db-pass-1',
    API_AUTH: 'api-auth-2',
    GH_PAT: 'gh-pat-3',
    OPENAI_API_KEY: 'sk-openai',
    AWS_SECRET_ACCESS_KEY: 'aws',
    LC_ADV_TOKEN: 'lc-canary-0123456789abcdef',
    LANGUAGE: 'en:fr',
    PLAIN_SETTING: 'plain',
    UNDEFINED_ONE: undefined,
  };

  it('gives a fixed PATH, the workspace as HOME and TMPDIR, the locale, TERM and TZ, and nothing else of the parent', () => {
    expect(toolEnv(parent, { workspace: '/tmp/ws/prompt-1' })).toEqual({
      PATH: TOOL_PATH,
      HOME: '/tmp/ws/prompt-1',
      TMPDIR: '/tmp/ws/prompt-1',
      LANG: 'en_US.UTF-8',
      LC_ALL: 'C.UTF-8',
      LC_CTYPE: 'de_DE@euro',
      TERM: 'xterm-256color',
      TZ: 'Europe/Paris',
    });
  });

  it('passes a locale, TERM or TZ only when its value has that shape', () => {
    const env = toolEnv({ LANG: 'hunter2-password-value', LC_ALL: 'x y', LC_CTYPE: 'C', TERM: 'a b', TZ: 'UTC' });
    expect(env).toEqual({ PATH: TOOL_PATH, LC_CTYPE: 'C', TZ: 'UTC' });
  });

  it('adds --tool-env names and what the row gives its tools, which wins; the docker variables only for the docker CLI', () => {
    const env = toolEnv(parent, { passed: ['PLAIN_SETTING', 'NOT_SET'], rowEnv: { PROJECT_MODE: 'test', TZ: 'UTC' } });
    expect(env).toMatchObject({ PLAIN_SETTING: 'plain', PROJECT_MODE: 'test', TZ: 'UTC', PATH: TOOL_PATH });
    expect(env).not.toHaveProperty('NOT_SET');
    expect(env).not.toHaveProperty('DOCKER_HOST');
    expect(toolEnv(parent, { docker: true, workspace: '/tmp/ws' })).toMatchObject({ DOCKER_HOST: parent.DOCKER_HOST, HOME: parent.HOME });
  });

  it('drops any variable whose value holds a secret in any form, passed, named or given by the row', () => {
    const key = 'sk-real-key-0123456789';
    const header = 'header-secret-9876543210';
    registerSecret(header, 'secret');
    const env = toolEnv(
      { ...parent, TZ: key, EXTRA: Buffer.from(key).toString('base64'), MINE: `x${header}` },
      {
        passed: ['EXTRA', 'MINE'],
        rowEnv: { PROXY_URL: `https://u:${encodeURIComponent(key)}@gw/`, HEXED: Buffer.from(key).toString('hex'), FINE: 'ok' },
        secretValues: [`${key}\n`],
      },
    );
    expect(Object.keys(env).sort()).toEqual(['FINE', 'LANG', 'LC_ALL', 'LC_CTYPE', 'PATH', 'TERM']);
  });
});
