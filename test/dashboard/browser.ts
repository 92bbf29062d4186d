/**
 * A real browser for the dashboard tests: Debian's Chromium (/usr/bin/chromium, installed by
 * .ci/run) driven by playwright-core — nothing downloads a browser. Each owner gets a fresh
 * profile (user-data-dir). axe-core is run on a page through the driver (the page's
 * Content-Security-Policy allows no inline script, and is not loosened for the tests); every
 * CSP violation the page reports fails the test.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import type { BrowserContext, Locator, Page } from 'playwright-core';

export const CHROMIUM = process.env.PRESEND_TEST_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Skip the browser tests, with the reason, when there is no Chromium here; in CI (which installs
 * it) a missing browser is a failure, not a skip.
 */
export const noBrowser: string | false =
  existsSync(CHROMIUM) || process.env.CI ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set PRESEND_TEST_CHROMIUM)`;

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

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface OwnerBrowser {
  context: BrowserContext;
  page: Page;
  /** Messages of CSP violations and page errors seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<OwnerBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'presend-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 900 },
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe-core on the page as it stands: no serious or critical violation (WCAG 2.x A and AA rules). */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${what}: accessibility violations ${JSON.stringify(serious, null, 2)}`);
}

/**
 * Screenshots for docs/dashboard.md, taken by these tests when PRESEND_DASHBOARD_SCREENSHOTS
 * names a folder (`PRESEND_DASHBOARD_SCREENSHOTS=docs/dashboard npm test`); a plain test run
 * writes nothing, so it never changes the committed pictures.
 */
export async function screenshot(page: Page, name: string, options: { mask?: Locator[] } = {}): Promise<void> {
  const dir = process.env.PRESEND_DASHBOARD_SCREENSHOTS;
  if (!dir) return;
  // `mask` covers what must not be committed, even from a throw-away test store (a key).
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false, ...(options.mask ? { mask: options.mask } : {}) });
}

/** Chooses the option of a select whose text matches `pattern` (Playwright matches labels exactly). */
export async function chooseOption(select: Locator, pattern: RegExp): Promise<void> {
  const labels = await select.locator('option').allInnerTexts();
  const label = labels.find((l) => pattern.test(l));
  assert.ok(label, `no option matches ${pattern}: ${labels.join(' | ')}`);
  await select.selectOption({ label });
}
