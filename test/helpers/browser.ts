import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'

const CANDIDATES = [
  process.env.SM_CHROMIUM,
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
]

/** Debian's Chromium, headless (`.ci/run` installs it): a missing browser fails the test, it never skips it. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = CANDIDATES.find((path): path is string => Boolean(path && existsSync(path)))
  if (!executablePath)
    throw new Error(
      "no Chromium found: install Debian's chromium (apt-get install chromium; .ci/run does) or set SM_CHROMIUM",
    )
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

/** Records every request the page makes that leaves `origin` (nothing may). */
export function outsideRequests(page: Page, origin: string): string[] {
  const outside: string[] = []
  page.on('request', (request) => {
    const url = request.url()
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url)
  })
  return outside
}

/**
 * Errors the page's scripts threw or logged, and responses that were missing (404) or failed
 * (5xx). A refused request the page expects (a wrong password's 401) is not one: Chromium's own
 * "Failed to load resource" line for it is left out, the response itself is judged instead.
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text())
  })
  page.on('response', (response) => {
    if (response.status() === 404 || response.status() >= 500) errors.push(`${response.status()} ${response.url()}`)
  })
  return errors
}

/** With SM_SCREENSHOTS=<dir>, the page is saved there as `<name>.png` (to look at; not checked). */
export async function snap(page: Page, name: string): Promise<void> {
  const dir = process.env.SM_SCREENSHOTS
  if (dir) await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}
