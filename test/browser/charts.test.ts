import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, outsideRequests, pageErrors } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'
import { cli, cliOk, spawnManager, stop } from '../helpers/run'
import { webUrl } from '../helpers/web-process'

/** Resolves once a chart in `container` has drawn after a sample came: a canvas of non-zero size, and the panel counted a live sample. */
function drawn(page: Page, container: string) {
  return page.waitForFunction((selector) => {
    const root = document.querySelector<HTMLElement>(selector)
    const canvas = root?.querySelector<HTMLCanvasElement>('.chart canvas')
    return Boolean(canvas && canvas.width > 0 && canvas.height > 0 && Number(root?.dataset.samples) >= 1)
  }, container)
}

/** With SM_SCREENSHOTS=<dir>, the page is saved there at 1280 and 390 px wide (to look at; not checked). */
async function snap(page: Page, name: string): Promise<void> {
  const dir = process.env.SM_SCREENSHOTS
  if (!dir) return
  await page.screenshot({ path: join(dir, `${name}-1280.png`), fullPage: true })
  await page.setViewportSize({ width: 390, height: 844 })
  await page.waitForFunction(() => [...document.querySelectorAll('.chart canvas')].every((c) => c.clientWidth <= 390))
  await page.screenshot({ path: join(dir, `${name}-390.png`), fullPage: true })
  await page.setViewportSize({ width: 1280, height: 800 })
}

/**
 * The resource charts in Debian's Chromium against a real manager and a game under its
 * supervisor: uPlot served from the manager, series loaded from the API, samples from the stream.
 */
describe('the resource charts in a real browser', () => {
  let dataDir: string
  let manager: ChildProcess
  let url: string
  let browser: Browser
  let page: Page
  let outside: string[]
  let errors: string[]

  before(async () => {
    dataDir = gameDataDir()
    await cliOk(dataDir, ['setting', 'set', 'metrics.interval_s', '1'])
    await cliOk(dataDir, ['server', 'add', 'lobby', '--dir', fakeBedrockDir()])
    await cliOk(dataDir, ['server', 'start', 'lobby'])
    const made = await cli(
      dataDir,
      ['user', 'create', 'boss', '--role', 'admin', '--password-stdin'],
      {},
      'a long password\n',
    )
    expect(made.code, made.stderr).to.equal(0)
    manager = await spawnManager(dataDir)
    url = await webUrl(manager)
    browser = await launchBrowser()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    outside = outsideRequests(page, url)
    errors = pageErrors(page)
    await page.goto(`${url}/login`)
    await page.getByLabel('User name').fill('boss')
    await page.getByLabel('Password').fill('a long password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${url}/`)
  })

  after(async () => {
    try {
      await browser?.close()
    } finally {
      if (manager) await stop(manager)
    }
  })

  it("draws a server's CPU and memory charts on its page and adds the samples the stream brings", async () => {
    await page.goto(`${url}/servers/lobby`)
    await drawn(page, '#metrics')
    expect(await page.locator('#metrics .chart canvas').count()).to.be.at.least(2)
    const figures = await page.locator('#metrics .metric').allTextContents()
    expect(figures.join(' ')).to.match(/CPU[\d.]+%/)
    expect(figures.join(' ')).to.match(/Memory[\d.]+ MiB/)
    await snap(page, 'server-charts')
  })

  it("draws the machine's charts on the dashboard and each server's figures in its row, live", async () => {
    await page.goto(`${url}/`)
    await drawn(page, '#host-metrics')
    await page.locator('tr[data-server="lobby"] [data-row-metrics]', { hasText: /% CPU · [\d.]+ MiB/ }).waitFor()
    expect(await page.locator('#host-metrics .metric').allTextContents()).to.have.length(3)
    await snap(page, 'dashboard-charts')
    // A game that stops shows no figures (its last ones would read as if it still ran).
    await cliOk(dataDir, ['server', 'stop', 'lobby'])
    await page.waitForFunction(
      () => document.querySelector('tr[data-server="lobby"] [data-row-metrics]')?.textContent === '',
    )
    expect(outside).to.deep.equal([])
    expect(errors).to.deep.equal([])
  })
})
