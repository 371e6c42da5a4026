import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it). */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** The devDependency that ships a Chromium build inside the npm package. */
const NPM_CHROMIUM: string = '@sparticuz/chromium';

/** Flags for a quiet headless Chromium as root in a container (both builds accept them). */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Where the browser tests' Chromium comes from. */
export type ChromiumSource = 'system' | 'npm';

/**
 * The Chromium to drive: `SWITCHBOARD_TEST_CHROMIUM=system` (Debian's, required) or `npm` (the
 * `@sparticuz/chromium` devDependency, unpacked to the temp folder on first use); unset, Debian's
 * when it is installed, else the npm one. So the browser tests run on any Linux x64 machine with
 * only Node and npm.
 */
export async function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): Promise<{ source: ChromiumSource; executablePath: string }> {
  const forced = env.SWITCHBOARD_TEST_CHROMIUM ?? '';
  if (forced !== '' && forced !== 'system' && forced !== 'npm') {
    throw new Error(`SWITCHBOARD_TEST_CHROMIUM must be "system" or "npm" (or unset); received "${forced}"`);
  }
  const source: ChromiumSource = forced === '' ? (existsSync(SYSTEM_CHROMIUM) ? 'system' : 'npm') : forced;
  if (source === 'system') {
    if (!existsSync(SYSTEM_CHROMIUM)) {
      throw new Error(`${SYSTEM_CHROMIUM} is missing: install it with \`apt-get install -y chromium\`, or unset SWITCHBOARD_TEST_CHROMIUM to use the npm build`);
    }
    return { source, executablePath: SYSTEM_CHROMIUM };
  }
  return { source, executablePath: await unpackNpmChromium() };
}

/**
 * Unpacks the npm Chromium to the temp folder once for all test processes: `@sparticuz/chromium`
 * writes `<tmp>/chromium` and returns it as soon as it exists, so parallel test files (or one killed
 * halfway) could launch a half-written binary. A lock folder serializes the unpacking, and a marker
 * written after it says the binary is whole.
 */
async function unpackNpmChromium(): Promise<string> {
  // Loaded by name only when used, so type-checking and the system-Chromium path do not need it installed.
  const { default: packaged } = (await import(NPM_CHROMIUM)) as { default: { executablePath(): Promise<string> } };
  const binary = join(tmpdir(), 'chromium');
  const ready = join(tmpdir(), 'switchboard-chromium.ready');
  if (existsSync(ready) && existsSync(binary)) return binary;
  const lock = join(tmpdir(), 'switchboard-chromium.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than five minutes belongs to a process that died while unpacking.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (existsSync(ready) && existsSync(binary)) return binary;
    rmSync(binary, { force: true });
    const path = await packaged.executablePath();
    writeFileSync(ready, path);
    return path;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A headless Chromium with its own throwaway profile. */
export interface LaunchedBrowser {
  context: BrowserContext;
  source: ChromiumSource;
  executablePath: string;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Launches headless Chromium (see {@link chromiumExecutable}) with a fresh profile folder, as every
 * browser test does; `args` are added to {@link CHROMIUM_FLAGS}; `preferences` seed the profile's
 * settings (e.g. `{ profile: { cookie_controls_mode: 0 } }` allows third-party cookies and storage).
 *
 * @example
 * const browser = await launchBrowser();
 * const page = await browser.context.newPage();
 * await browser.close();
 */
export async function launchBrowser(
  options: { viewport?: { width: number; height: number }; args?: readonly string[]; preferences?: Record<string, unknown> } = {},
): Promise<LaunchedBrowser> {
  const { source, executablePath } = await chromiumExecutable();
  const profile = mkdtempSync(join(tmpdir(), 'sb-chromium-'));
  try {
    // Settings a user may have changed (the profile's Preferences file, read at launch).
    if (options.preferences !== undefined) {
      mkdirSync(join(profile, 'Default'));
      writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify(options.preferences));
    }
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_FLAGS, ...(options.args ?? [])],
      viewport: options.viewport ?? { width: 1400, height: 1000 },
    });
    return {
      context,
      source,
      executablePath,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
