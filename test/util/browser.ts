// Debian's Chromium (the chromium package: make setup installs it where missing), headless, offline and
// with a fresh profile each time: nothing a browser download or an earlier run left can change a page.
// Its command line (--dump-dom, --screenshot) serves a test that reads a page back; playwright-core drives
// it (never its own browser: it downloads none) where a test measures the laid-out page.
import { existsSync } from 'node:fs';
import { type BrowserContext, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { tempDir } from './cli.js';

export const CHROMIUM = '/usr/bin/chromium';

/** No first-run page, sync, component updates or background traffic; no GPU or sandbox in a container. */
const OFFLINE_HEADLESS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function expectChromium(): void {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: make setup installs it (Debian's chromium package: apt-get install chromium)`).toBe(true);
}

/** Chromium's command line for `mode` (e.g. --dump-dom) on a page, in a fresh profile. */
export function chromiumCommand(...mode: string[]): string[] {
  expectChromium();
  return [...OFFLINE_HEADLESS, `--user-data-dir=${tempDir('hermes-chromium-')}`, ...mode];
}

/** Chromium under playwright-core, in a fresh profile, its pages `width` x `height` CSS pixels. Close it after. */
export function launchChromium(viewport: { width: number; height: number }): Promise<BrowserContext> {
  expectChromium();
  return chromium.launchPersistentContext(tempDir('hermes-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: OFFLINE_HEADLESS,
    viewport,
    offline: true,
  });
}
