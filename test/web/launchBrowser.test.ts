import { describe, expect, it } from 'vitest';
import { SYSTEM_CHROMIUM, chromiumExecutable, launchBrowser } from '../support/launchBrowser.js';

describe('launchBrowser', () => {
  it('launches the npm Chromium when asked, so the browser tests run where Debian has none', async () => {
    const saved = process.env.SWITCHBOARD_TEST_CHROMIUM;
    process.env.SWITCHBOARD_TEST_CHROMIUM = 'npm';
    try {
      const browser = await launchBrowser();
      try {
        expect(browser.source).toBe('npm');
        expect(browser.executablePath).not.toBe(SYSTEM_CHROMIUM);
        const page = await browser.context.newPage();
        await page.setContent('<p id="x">rendered</p><script>document.getElementById("x").dataset.js = String(1 + 1)</script>');
        expect(await page.getAttribute('#x', 'data-js')).toBe('2');
      } finally {
        await browser.close();
      }
    } finally {
      if (saved === undefined) delete process.env.SWITCHBOARD_TEST_CHROMIUM;
      else process.env.SWITCHBOARD_TEST_CHROMIUM = saved;
    }
  }, 120_000);

  it('refuses an unknown SWITCHBOARD_TEST_CHROMIUM value and names the valid ones', async () => {
    await expect(chromiumExecutable({ SWITCHBOARD_TEST_CHROMIUM: 'firefox' })).rejects.toThrow('SWITCHBOARD_TEST_CHROMIUM must be "system" or "npm" (or unset); received "firefox"');
  });
});
