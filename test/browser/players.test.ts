import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { type BrowserRun, openInBrowser, signInPage, snap, userCommand } from '../helpers/browser'
import { cliInOk } from '../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'

/**
 * The server page's Players section (issue 20, item 3) in Debian's Chromium, against a real
 * manager and a Bedrock stand-in under its supervisor: a player joins the game and shows up live,
 * and an admin adds a name to the allowlist from the page.
 */
describe('the Players section of the server page in a real browser', () => {
  let dataDir: string
  let dir: string
  let session: BrowserRun
  let url: string
  let page: Page

  before(async () => {
    dataDir = gameDataDir()
    dir = fakeBedrockDir()
    session = await openInBrowser(dataDir, [
      ['server', 'add', 'lobby', '--dir', dir],
      userCommand('boss', 'admin', 'a long password'),
    ])
    ;({ url, page } = session)
    await cliInOk(dataDir, ['server', 'start', 'lobby'])
  })

  // The game the test started outlives the manager by design: gameDataDir() kills it after this describe.
  after(() => session?.close())

  it('shows a player who joins the game in the Players section, live, online now and in the history', async () => {
    await signInPage(page, url, 'boss', 'a long password')
    await page.goto(`${url}/servers/lobby`)
    await page.getByRole('heading', { name: 'lobby' }).waitFor()
    await page.locator('#player-history', { hasText: 'Nobody has joined' }).waitFor()

    await cliInOk(dataDir, ['server', 'send', 'lobby', 'fakejoin', 'Steve', '2535412345678901'])
    await page.locator('#players-online [data-player="Steve"]').waitFor()
    const row = page.locator('#player-history tr[data-player="Steve"]')
    await row.locator('td', { hasText: 'online' }).waitFor()
    expect(await row.locator('code').textContent()).to.equal('2535412345678901')

    await cliInOk(dataDir, ['server', 'send', 'lobby', 'fakeleave', 'Steve'])
    await page.waitForFunction(() => !document.querySelector('#players-online [data-player="Steve"]'))
    await row.locator('td', { hasText: 'online' }).waitFor({ state: 'detached' })
  })

  it("adds a name to the allowlist from the page, through the running game's console", async () => {
    const section = page.locator('#allowlist')
    await section.locator('tbody', { hasText: 'Nobody.' }).waitFor()
    await page.getByLabel('Player for the allowlist').fill('Alex')
    await page.getByRole('button', { name: 'Add to allowlist' }).click()
    await section.locator('tr[data-player="Alex"]').waitFor()
    await page.getByText("'Alex' added to the allowlist of 'lobby' (by its console).").waitFor()
    expect(JSON.parse(readFileSync(join(dir, 'allowlist.json'), 'utf8'))).to.deep.equal([
      { ignoresPlayerLimit: false, name: 'Alex' },
    ])
    await snap(page, 'players')
    await section.locator('tr[data-player="Alex"]').getByRole('button', { name: 'Remove' }).click()
    await section.locator('tbody', { hasText: 'Nobody.' }).waitFor()
  })

  it('loaded nothing from outside the machine, and the page logged no error', () => {
    expect(session.outside).to.deep.equal([])
    expect(session.errors).to.deep.equal([])
  })
})
