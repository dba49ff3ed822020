import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'
import { cli, spawnManager, stop, waitForLine } from './run'

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

/** A manager as `server-manager start` runs it, and a Chromium page on its web UI. */
export interface BrowserSession {
  readonly manager: ChildProcess
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly browser: Browser
  readonly page: Page
  /** Requests that left the manager's origin (nothing may). */
  readonly outside: string[]
  /** What `pageErrors` collects. */
  readonly errors: string[]
  /** Closes the browser, then stops the manager (also when the browser fails to close). */
  close(): Promise<void>
}

/** Starts `server-manager start` for `dataDir` (its web.port set to 0 first) and opens a page. */
export async function browserSession(dataDir: string): Promise<BrowserSession> {
  const port = await cli(dataDir, ['setting', 'set', 'web.port', '0'])
  if (port.code !== 0) throw new Error(`web.port could not be set: ${port.stderr}`)
  const manager = await spawnManager(dataDir)
  const line = await waitForLine(manager, /web UI and API on http:\/\/\S+/)
  const url = /(http:\/\/\S+?)\s/.exec(`${line} `)?.[1] as string
  const browser = await launchBrowser()
  const page = await browser.newPage()
  return {
    manager,
    url,
    browser,
    page,
    outside: outsideRequests(page, url),
    errors: pageErrors(page),
    async close() {
      try {
        await browser.close()
      } finally {
        await stop(manager)
      }
    },
  }
}
