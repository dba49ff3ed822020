import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { type BrowserRun, chartDrawn, openInBrowser, signInPage, snap, userCommand } from '../helpers/browser'
import { cliInOk } from '../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'

/** With SM_SCREENSHOTS=<dir>, the page is saved there at 1280 and 390 px wide (to look at; not checked). */
async function snapWidths(page: Page, name: string): Promise<void> {
  if (!process.env.SM_SCREENSHOTS) return
  await snap(page, `${name}-1280`)
  await page.setViewportSize({ width: 390, height: 844 })
  await page.waitForFunction(() => [...document.querySelectorAll('.chart canvas')].every((c) => c.clientWidth <= 390))
  await snap(page, `${name}-390`)
  await page.setViewportSize({ width: 1280, height: 800 })
}

/**
 * The resource charts in Debian's Chromium against a real manager and a game under its
 * supervisor: uPlot served from the manager, series loaded from the API, samples from the stream.
 */
describe('the resource charts in a real browser', () => {
  let dataDir: string
  let session: BrowserRun
  let url: string
  let page: Page

  before(async () => {
    dataDir = gameDataDir()
    session = await openInBrowser(dataDir, [
      ['setting', 'set', 'metrics.interval_s', '1'],
      ['server', 'add', 'lobby', '--dir', fakeBedrockDir()],
      userCommand('boss', 'admin', 'a long password'),
    ])
    ;({ url, page } = session)
    await page.setViewportSize({ width: 1280, height: 800 })
    await cliInOk(dataDir, ['server', 'start', 'lobby'])
    await signInPage(page, url, 'boss', 'a long password')
  })

  after(() => session?.close())

  it("draws a server's CPU and memory charts on its page and adds the samples the stream brings", async () => {
    await page.goto(`${url}/servers/lobby`)
    await chartDrawn(page, '#metrics')
    expect(await page.locator('#metrics .chart canvas').count()).to.be.at.least(2)
    const figures = await page.locator('#metrics .metric').allTextContents()
    expect(figures.join(' ')).to.match(/CPU[\d.]+%/)
    expect(figures.join(' ')).to.match(/Memory[\d.]+ MiB/)
    await snapWidths(page, 'server-charts')
  })

  it("draws the machine's charts on the dashboard and each server's figures in its row, live", async () => {
    await page.goto(`${url}/`)
    await chartDrawn(page, '#host-metrics')
    await page.locator('tr[data-server="lobby"] [data-row-metrics]', { hasText: /% CPU · [\d.]+ MiB/ }).waitFor()
    expect(await page.locator('#host-metrics .metric').allTextContents()).to.have.length(3)
    await snapWidths(page, 'dashboard-charts')
    // A game that stops shows no figures (its last ones would read as if it still ran).
    await cliInOk(dataDir, ['server', 'stop', 'lobby'])
    await page.waitForFunction(
      () => document.querySelector('tr[data-server="lobby"] [data-row-metrics]')?.textContent === '',
    )
    expect(session.outside).to.deep.equal([])
    expect(session.errors).to.deep.equal([])
  })
})
