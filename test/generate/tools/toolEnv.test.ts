import { describe, expect, it } from 'vitest';
import { safeEnv } from '../../../packages/generate/src/tools/safeEnv.js';

describe('safeEnv', () => {
  const parent = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/user',
    LANG: 'C.UTF-8',
    FAKE_API_KEY: 'sk-test-123',
    MY_TOKEN: 'tok-abc',
    github_token: 'ghp-lower',
    AWS_SECRET_ACCESS_KEY: 'aws',
    DB_PASSWORD: 'pw',
    MYSQL_PASSWD: 'pw2',
    GOOGLE_APPLICATION_CREDENTIALS: '/creds.json',
    TAOTOKEN_API_KEY: 'sk-real-key-987',
    OPENAI_API_KEY: 'sk-openai',
    ANTHROPIC_API_KEY: 'sk-ant',
    HERMES_API_KEY: 'sk-hermes',
    INNOCENT: 'sk-real-key-987',
    PROXY_URL: 'https://user:sk-real-key-987@gateway.example/api',
    GATEWAY_AUTH: 'secret-but-innocent-name',
    UNDEFINED_ONE: undefined,
  };

  it('drops every variable whose name contains a secret fragment, in any case', () => {
    const env = safeEnv(parent);
    for (const name of ['FAKE_API_KEY', 'MY_TOKEN', 'github_token', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'MYSQL_PASSWD', 'GOOGLE_APPLICATION_CREDENTIALS', 'TAOTOKEN_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'HERMES_API_KEY']) {
      expect(env).not.toHaveProperty(name);
    }
    expect(env).toMatchObject({ PATH: '/usr/bin:/bin', HOME: '/home/user', LANG: 'C.UTF-8' });
  });

  it('drops extra names and any variable whose value contains the resolved key', () => {
    const env = safeEnv(parent, { dropNames: ['gateway_auth'], secretValues: ['sk-real-key-987\n'] });
    expect(env).not.toHaveProperty('GATEWAY_AUTH');
    expect(env).not.toHaveProperty('INNOCENT');
    expect(env).not.toHaveProperty('PROXY_URL');
    expect(Object.values(env).join('\n')).not.toContain('sk-');
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'PATH']);
  });

  it('keeps innocent variables when no key value is given and ignores empty secrets', () => {
    const env = safeEnv({ INNOCENT: 'value', EMPTY: '' }, { secretValues: ['', '  '] });
    expect(env).toEqual({ INNOCENT: 'value', EMPTY: '' });
  });
});
