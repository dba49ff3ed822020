import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { type BrowserRun, openInBrowser, snap } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'

/**
 * The web UI in Debian's Chromium against a real manager (`server-manager start`) and a game
 * server under its supervisor, as an admin uses it the first time.
 */
describe('the web UI in a real browser', () => {
  let run: BrowserRun
  let url: string
  let page: Page

  before(async () => {
    run = await openInBrowser(gameDataDir(), [
      ['setting', 'set', 'plugins.dev_examples', 'true'],
      ['server', 'add', 'lobby', '--dir', fakeBedrockDir()],
    ])
    ;({ url, page } = run)
  })

  // The game server the page started outlives the manager by design: gameDataDir() kills it after
  // this describe.
  after(() => run?.close())

  it('leads the first visit to setup, which creates the admin and signs in', async () => {
    await page.goto(`${url}/`)
    expect(new URL(page.url()).pathname).to.equal('/setup')
    await page.getByLabel('User name').fill('admin')
    await page.getByLabel('Password', { exact: true }).fill('a good password')
    await page.getByLabel('Password again').fill('a good password')
    await page.getByRole('button', { name: 'Create the admin account' }).click()
    await page.waitForURL(`${url}/`)
    await page.getByRole('heading', { name: 'Servers' }).waitFor()
    expect(await page.locator('tr[data-server="lobby"] [data-status]').textContent()).to.equal('stopped')
  })

  it('signs out and in again, showing a wrong password as a readable message', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.getByLabel('User name').fill('admin')
    await page.getByLabel('Password').fill('not it')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('Incorrect username or password.').waitFor()
    await page.getByLabel('Password').fill('a good password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${url}/`)
  })

  it('starts a server from the dashboard and shows its status change live', async () => {
    await page.locator('tr[data-server="lobby"]').getByRole('button', { name: 'Start', exact: true }).click()
    await page.locator('tr[data-server="lobby"] [data-status]', { hasText: 'running' }).waitFor()
    expect(await page.locator('#running-count').textContent()).to.equal('1')
    await snap(page, 'dashboard')
  })

  it("shows the server's console live and the reply to a command sent from the page, on one stream", async () => {
    const streams: string[] = []
    const count = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === '/api/events/stream') streams.push(request.url())
    }
    page.on('request', count)
    await page.getByRole('link', { name: 'lobby' }).click()
    await page.waitForURL(`${url}/servers/lobby`)
    await page.locator('#console .line', { hasText: 'Server started.' }).waitFor()
    await page.locator('#metrics .chart canvas').first().waitFor()
    page.off('request', count)
    // The console, the charts and the players share the page's one stream (a browser allows six
    // connections to a host: a stream each would let two tabs starve a third).
    expect(streams, streams.join('\n')).to.have.length(1)
    // The next command may be typed while a reply is on its way: the reply does not clear it.
    // (The first request is held until then, so the order is the same on any machine.)
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const command = `${url}/api/servers/lobby/command`
    await page.route(
      command,
      async (route) => {
        await held
        await route.continue()
      },
      { times: 1 },
    )
    const answered = page.waitForResponse(command)
    await page.getByLabel('Console command').fill('say hello from the browser')
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByLabel('Console command').fill('list')
    release()
    await answered
    await page.locator('#console .line:not(.sent)', { hasText: 'hello from the browser' }).waitFor()
    expect(await page.getByLabel('Console command').inputValue()).to.equal('list')
    await page.getByRole('button', { name: 'Send' }).click()
    await page.locator('#reply', { hasText: 'players online' }).waitFor()
    await snap(page, 'server')
  })

  it('takes a backup, following its progress to the end, and lists it with a download link', async () => {
    await page.getByRole('button', { name: 'Back up now' }).click()
    await page.locator('#backup-status', { hasText: 'Backup: done' }).waitFor()
    const link = page.locator('#backups a[download]').first()
    await link.waitFor()
    expect(await link.textContent()).to.match(/\.mcworld$/)
    const download = await page.request.get(`${url}${await link.getAttribute('href')}`)
    expect(download.status()).to.equal(200)
    expect((await download.body()).subarray(0, 2).toString()).to.equal('PK')
  })

  it('enables a plugin from the plugins page, and its native page appears in the sidebar, draws and submits its form', async () => {
    await page.goto(`${url}/plugins`)
    expect(await page.locator('.plugin-pages').count()).to.equal(0)
    await page.getByLabel('Enable native_page_example').check()
    await page.locator('tr[data-plugin="native_page_example"] .state', { hasText: 'loaded' }).waitFor()
    const entry = page.locator('.plugin-pages').getByRole('link', { name: 'Component showcase' })
    await entry.click()
    await page.getByRole('heading', { name: 'Component showcase' }).waitFor()
    await page.getByLabel('Message').fill('from the browser')
    await page.getByRole('button', { name: 'Submit' }).click()
    await page.getByText('Received: 4 fields').waitFor()
    await snap(page, 'native')
    await page.getByRole('tab', { name: 'Display' }).click()
    await page.getByRole('button', { name: 'Open a modal' }).click()
    await page.locator('dialog[open]').getByText('A modal.').waitFor()
    await page.locator('dialog[open]').getByRole('button', { name: 'Close', exact: true }).click()
    expect(await page.locator('dialog[open]').count()).to.equal(0)
    expect(await page.locator('.unknown-component').count()).to.equal(0)
  })

  it('shows tasks, settings, users and API tokens, and the event log, each from its sidebar entry', async () => {
    await page.goto(`${url}/`)
    await page.locator('#sidebar').getByRole('link', { name: 'Tasks' }).click()
    await page
      .locator('#tasks tr', { hasText: 'backup lobby' })
      .locator('.state', { hasText: 'succeeded' })
      .first()
      .waitFor()
    await page.locator('#sidebar').getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('Filter settings').fill('web.port')
    await page.locator('#settings tr[data-key="web.port"]').waitFor()
    await page.locator('#sidebar').getByRole('link', { name: 'Users and tokens' }).click()
    await page.locator('#users td', { hasText: 'admin' }).first().waitFor()
    await page.getByLabel('Token name').fill('from the browser')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page.locator('#new-token .token', { hasText: 'smt_' }).waitFor()
    const token = (await page.locator('#new-token .token').textContent()) ?? ''
    expect(token).to.match(/^smt_/)
    const api = await page.request.get(`${url}/api/servers`, { headers: { Authorization: `Bearer ${token}` } })
    expect(api.status()).to.equal(200)
    await page.locator('#tokens td', { hasText: 'from the browser' }).waitFor()
    await page.locator('#sidebar').getByRole('link', { name: 'Event log' }).click()
    await page.locator('#events code', { hasText: 'auth:token_created' }).first().waitFor()
    // Followed live: a fact recorded now appears without a reload.
    await page.request.put(`${url}/api/settings/custom.from_browser`, {
      data: { value: 1 },
      headers: { 'X-CSRF-Token': (await page.locator('meta[name="csrf-token"]').getAttribute('content')) ?? '' },
    })
    await page.locator('#events code', { hasText: 'after_setting_update' }).last().waitFor()
  })

  it('fits a phone-width screen: the sidebar becomes a menu', async () => {
    await page.setViewportSize({ width: 390, height: 800 })
    await page.goto(`${url}/`)
    expect(await page.locator('#sidebar').isVisible()).to.equal(false)
    await page.getByRole('button', { name: 'Menu' }).click()
    expect(await page.locator('#sidebar').isVisible()).to.equal(true)
    await snap(page, 'phone')
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    expect(width).to.be.at.most(390)
    await page.setViewportSize({ width: 1280, height: 800 })
  })

  it('draws every operation in Swagger UI at /docs', async () => {
    await page.goto(`${url}/docs`)
    await page.locator('.opblock').first().waitFor()
    expect(await page.locator('.opblock').count()).to.be.greaterThan(40)
  })

  it('loaded nothing from outside the machine, and no page logged an error', () => {
    expect(run.outside).to.deep.equal([])
    expect(run.errors).to.deep.equal([])
  })
})
