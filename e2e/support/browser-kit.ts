import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

// What the page's browser tests share: waits bounded in time, axe-core in the page, the page's errors watched.

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Debian's Chromium, or the one GF_CHROMIUM names. */
export const CHROMIUM = process.env.GF_CHROMIUM ?? '/usr/bin/chromium';
/** Where the screenshots go; the committed ones in docs/screenshots/ are copies of a run's. */
export const SHOTS = process.env.GF_SCREENSHOTS_DIR ?? join(root, '.greenfinger/screenshots');
export const WAIT = { timeout: 15_000 };
export const POLL = { timeout: 15_000, interval: 100 };

let axeSource: string | undefined;

/** Waits bounded in time (vitest's expect has no locator matchers; playwright-core ships none). */
export async function visible(l: Locator, timeout = 15_000): Promise<void> {
  await l.first().waitFor({ state: 'visible', timeout });
}

export async function contains(l: Locator, want: string | RegExp, options: { timeout?: number } = {}): Promise<void> {
  const re = typeof want === 'string' ? new RegExp(want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : want;
  await expect
    .poll(
      async () =>
        (await l
          .first()
          .textContent({ timeout: 1_000 })
          .catch(() => '')) ?? '',
      {
        timeout: options.timeout ?? 15_000,
        interval: 100,
      },
    )
    .toMatch(re);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core in the page (evaluated, so the page's CSP stays on): the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: Document): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document)).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** The page's JavaScript failing, or the CSP refusing something, is a failure of the screen. */
export function watchErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // A refused request (401, 404) is the page's business to show; what a stored page in the sandboxed frame
    // tries (its scripts, its relative links) is blocked on purpose.
    if (m.type() !== 'error' || /status of 40[0-9]/.test(m.text()) || m.location().url.startsWith('blob:')) return;
    errors.push(`console: ${m.text()} (${m.location().url})`);
  });
}
