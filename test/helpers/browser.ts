import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { basename, join } from 'node:path'
import { expect } from 'chai'
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core'
import { cliIn } from './cli-in-process'
import { keepWhatStarts } from './leaks'
import { spawnManager, stop, waitForLine } from './run'
import { atProcessEnd } from './run-end'
import { webUrl } from './web-process'

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

let shared: Promise<Browser> | undefined

/**
 * One Chromium for every browser test of this process (each worker of the parallel run), launched
 * at the first: a launch costs seconds of CPU, a context (a fresh profile: its own cookies,
 * storage and cache) next to nothing. The leak check leaves it and its crash handlers (which
 * leave it to run on their own) running between files; it ends with a worker, and is closed at
 * the end of a serial run. One that crashed is launched again by the next file.
 */
function sharedBrowser(): Promise<Browser> {
  shared ??= keepWhatStarts(
    (argv, ppid) =>
      (ppid === process.pid && argv.includes('--remote-debugging-pipe')) ||
      basename(argv[0] ?? '') === 'chrome_crashpad_handler',
    launchBrowser,
  ).then(
    ({ value: browser, release }) => {
      browser.on('disconnected', () => {
        shared = undefined
        release()
      })
      atProcessEnd(() => browser.close())
      return browser
    },
    (error: unknown) => {
      shared = undefined
      throw error
    },
  )
  return shared
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

/** A manager in its own process and a browser page on its web UI. */
export interface BrowserRun {
  readonly manager: ChildProcess
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** A page in a context of its own (another user, a phone's viewport), closed with the run. */
  newPage(options?: BrowserContextOptions): Promise<Page>
  readonly page: Page
  /** Requests the page made outside the manager (`outsideRequests`). */
  readonly outside: string[]
  /** What the page's scripts threw or logged, and missing or failed responses (`pageErrors`). */
  readonly errors: string[]
  /** Closes its browser contexts, then stops the manager (also when a context fails to close). */
  close(): Promise<void>
}

/** A CLI command to run before the manager starts: its arguments, or with its standard input. */
export type SetupCommand = readonly string[] | { readonly args: readonly string[]; readonly input: string }

/** `user create <name> --role <role>` with its password on standard input, as a setup command. */
export const userCommand = (name: string, role: string, password: string): SetupCommand => ({
  args: ['user', 'create', name, '--role', role, '--password-stdin'],
  input: `${password}\n`,
})

/**
 * Runs the CLI `commands` on `dataDir` (each must succeed), starts its manager
 * (`server-manager start`, on a free web port; both with `env` over the test's own) and opens a
 * Chromium page that records what it loads from outside and the errors it logs.
 */
export async function openInBrowser(
  dataDir: string,
  commands: readonly SetupCommand[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<BrowserRun> {
  // spawnManager() sets web.port to a free one. The setup commands run in this process (no
  // manager runs yet: each boots one here, as a cold process would in its own).
  for (const command of commands) {
    const { args, input } = 'args' in command ? command : { args: command, input: undefined }
    const result = await cliIn(dataDir, [...args], env, input)
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0)
  }
  const manager = await spawnManager(dataDir, [], env)
  try {
    // Ready: its CLI bridge serves too, so a test's commands go to it.
    const [url] = await Promise.all([webUrl(manager), waitForLine(manager, /^ready in/)])
    const browser = await sharedBrowser()
    const contexts: BrowserContext[] = []
    const newPage = async (options?: BrowserContextOptions) => {
      const context = await browser.newContext(options)
      contexts.push(context)
      return context.newPage()
    }
    const page = await newPage().catch(async (error: unknown) => {
      await Promise.all(contexts.map((context) => context.close()))
      throw error
    })
    return {
      manager,
      url,
      newPage,
      page,
      outside: outsideRequests(page, url),
      errors: pageErrors(page),
      async close() {
        try {
          await Promise.all(contexts.map((context) => context.close()))
        } finally {
          await stop(manager)
        }
      },
    }
  } catch (error) {
    await stop(manager)
    throw error
  }
}

/** Signs in on the login page as `username` and waits for the dashboard. */
export async function signInPage(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(`${url}/login`)
  await page.getByLabel('User name').fill(username)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${url}/`)
}

/** With SM_SCREENSHOTS=<dir>, the page is saved there as `<name>.png` (to look at; not checked). */
export async function snap(page: Page, name: string, fullPage = true): Promise<void> {
  const dir = process.env.SM_SCREENSHOTS
  if (dir) await page.screenshot({ path: join(dir, `${name}.png`), fullPage })
}

/** Resolves once the chart panel `selector` has drawn after a live sample: a canvas of non-zero size, and the panel counted the sample. */
export function chartDrawn(page: Page, selector: string) {
  return page.waitForFunction((container) => {
    const root = document.querySelector<HTMLElement>(container)
    const canvas = root?.querySelector<HTMLCanvasElement>('.chart canvas')
    return Boolean(canvas && canvas.width > 0 && canvas.height > 0 && Number(root?.dataset.samples) >= 1)
  }, selector)
}

/**
 * Answers the panel's own question (sm.ask, a modal <dialog>) once it is shown: its OK button
 * (`accept`, typing `text` into its field first) or Cancel. Resolves with the question asked.
 */
export async function answerDialog(page: Page, accept: boolean, text?: string): Promise<string> {
  const dialog = page.locator('dialog.ask[open]')
  await dialog.waitFor()
  const question = (await dialog.locator('p').textContent()) ?? ''
  if (text !== undefined) await dialog.getByRole('textbox').fill(text)
  if (accept) await dialog.locator('button[type="submit"]').click()
  else await dialog.getByRole('button', { name: 'Cancel' }).click()
  await dialog.waitFor({ state: 'detached' })
  return question
}
