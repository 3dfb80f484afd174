/**
 * Debian's Chromium for the console's end-to-end tests, driven by playwright-core (no browser
 * download: CI installs the `chromium` package, .ci/run). A missing browser fails with a message
 * that says what to install, not with a launch stack trace.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Screenshots of each flow (git-ignored), to look at. */
export const SHOTS = join(process.cwd(), 'test-results', 'console');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: the console's browser tests need Debian's chromium package (apt-get install chromium) or CHROMIUM_PATH set to a Chromium binary`);
  }
  mkdirSync(SHOTS, { recursive: true });
  // Flags for a closed network and a root user: no background connections, no sandbox, a fresh profile (playwright makes one).
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
}
