// Which proxy variable applies to a URL, as curl and Python decide it.
import { describe, expect, it } from 'vitest';
import { describeProxy, proxyPort, proxyVariables } from '@hermes-datagen/core/endpoint';
import { proxyFor } from '@hermes-datagen/core/internal/proxy.js';

describe('proxyFor', () => {
  it('uses https_proxy for https and http_proxy for http', () => {
    const env = { https_proxy: 'http://127.0.0.1:7890', http_proxy: 'http://127.0.0.1:7891' };
    expect(proxyFor('https://gateway.example.com/api', env)?.url.port).toBe('7890');
    expect(proxyFor('http://gateway.example.com/api', env)?.url.port).toBe('7891');
  });

  it('reads any case, lowercase first, and falls back to all_proxy', () => {
    expect(proxyFor('https://g.example.com', { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2' })?.name).toBe('https_proxy');
    expect(proxyFor('https://g.example.com', { Https_Proxy: 'http://mixed:3' })?.name).toBe('Https_Proxy');
    expect(proxyFor('https://g.example.com', { ALL_PROXY: 'socks5://127.0.0.1:1080' })?.url.protocol).toBe('socks5:');
    expect(proxyFor('https://g.example.com', { http_proxy: 'http://only-http:1' })).toBeUndefined();
  });

  it('honours no_proxy: exact hosts, domain suffixes, ports and *', () => {
    const proxy = { https_proxy: 'http://127.0.0.1:7890' };
    expect(proxyFor('https://api.example.com', { ...proxy, no_proxy: 'localhost,.example.com' })).toBeUndefined();
    expect(proxyFor('https://example.com', { ...proxy, NO_PROXY: 'example.com' })).toBeUndefined();
    expect(proxyFor('https://notexample.com', { ...proxy, no_proxy: 'example.com' })).toBeDefined();
    expect(proxyFor('https://example.com:8443', { ...proxy, no_proxy: 'example.com:443' })).toBeDefined();
    expect(proxyFor('https://example.com', { ...proxy, no_proxy: 'example.com:443' })).toBeUndefined();
    expect(proxyFor('http://[::1]:8080', { http_proxy: 'http://p:1', no_proxy: '::1' })).toBeUndefined();
    expect(proxyFor('https://anything.test', { ...proxy, no_proxy: '*' })).toBeUndefined();
  });

  it('takes a proxy without a scheme as http, and ignores empty variables', () => {
    const found = proxyFor('https://g.example.com', { https_proxy: '127.0.0.1:7890' });
    expect(found?.url.href).toBe('http://127.0.0.1:7890/');
    expect(proxyVariables({ https_proxy: '  ', HTTP_PROXY: '' })).toEqual([]);
  });
});

describe('describeProxy and proxyPort', () => {
  it('never shows the credentials a proxy URL holds', () => {
    const [proxy] = proxyVariables({ https_proxy: 'http://user:hunter2@proxy.corp:3128' });
    expect(proxy).toBeDefined();
    expect(describeProxy(proxy!)).toBe('https_proxy=http://proxy.corp:3128');
    expect(proxyPort(proxy!)).toBe(3128);
  });

  it('knows the default ports', () => {
    const [http, socks] = proxyVariables({ http_proxy: 'http://proxy.corp', all_proxy: 'socks5://proxy.corp' });
    expect(proxyPort(http!)).toBe(80);
    expect(proxyPort(socks!)).toBe(1080);
  });
});
