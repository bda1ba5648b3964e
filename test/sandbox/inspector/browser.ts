/**
 * Debian's chromium driven by playwright-core: no browser is downloaded. One browser per test
 * file, one page per test; a failing test leaves a screenshot in test-artifacts/inspector/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts/inspector');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserRun {
  page: Page;
  /** Messages the page logged as errors (an uncaught exception, a CSP violation). */
  pageErrors: string[];
}

/** Launches the browser for this file (with `extraArgs`, such as host resolver rules); the getter gives the current test's fresh page. */
export function useBrowser(extraArgs: readonly string[] = []): () => BrowserRun {
  let browser: Browser | undefined;
  let run: BrowserRun | undefined;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `The inspector's browser tests need Chromium at ${CHROMIUM}. Install it with ` +
          '`apt-get install -y chromium` (Debian) or point CHROMIUM_PATH at a Chromium binary.',
      );
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, ...extraArgs] });
  });
  beforeEach(async (context) => {
    if (!browser) throw new Error('the browser did not start');
    // The previous page is closed here, not after its test: a failed test's screenshot needs it.
    await run?.page.close();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.setDefaultTimeout(5_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    run = { page, pageErrors };
    context.onTestFailed(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true }).catch(() => undefined);
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!run) throw new Error('useBrowser() is only usable inside a test');
    return run;
  };
}
