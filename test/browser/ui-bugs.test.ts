import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { answerDialog, type BrowserRun, openInBrowser, signInPage, snap } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'
import { http } from '../helpers/web'
import { adminSession, BOSS_PASSWORD } from '../helpers/web-process'

/**
 * What users of the web UI saw first (issue 20, build item 5), each step a bug they met: in
 * Debian's Chromium against a real manager and a game server under its supervisor.
 */
describe('the web UI: what its users saw first', () => {
  let run: BrowserRun
  let url: string
  let page: Page
  let token: string
  const status = (name: string) => page.locator(`#server-page [data-status]`, { hasText: new RegExp(`^${name}$`) })
  const power = (name: string) => page.locator('.power').getByRole('button', { name, exact: true })
  const bootLines = () => page.locator('#console .line', { hasText: 'Starting Server' })
  /** The game's PID as the API tells it now. */
  const apiPid = async () =>
    (await http(`${url}/api/servers/lobby/status`, { token })).json.run.pid as number | undefined

  before(async () => {
    const dataDir = gameDataDir()
    run = await openInBrowser(dataDir, [
      ['setting', 'set', 'plugins.dev_examples', 'true'],
      ['plugin', 'enable', 'native_page_example'],
      ['server', 'add', 'lobby', '--dir', fakeBedrockDir()],
    ])
    ;({ url, page } = run)
    token = await adminSession(dataDir, url)
    await signInPage(page, url, 'boss', BOSS_PASSWORD)
  })

  // The game outlives the manager by design: gameDataDir() kills it after this describe.
  after(() => run?.close())

  it('heads the Users page', async () => {
    await page.goto(`${url}/users`)
    await page.getByRole('heading', { name: 'Users and tokens', level: 1 }).waitFor()
  })

  it("shows Swagger UI's description with its placeholders", async () => {
    await page.goto(`${url}/docs`)
    await page.locator('.info', { hasText: 'Authorization: Bearer <token>' }).waitFor()
  })

  it('draws the StatCard icon', async () => {
    await page.goto(`${url}/`)
    await page.locator('#sidebar').getByRole('link', { name: 'Component showcase' }).click()
    await page.getByRole('tab', { name: 'Monitoring' }).click()
    const label = page.locator('.stat-card .stat-label', { hasText: 'Servers' })
    await label.waitFor()
    // Drawn, not a character the font may lack (a missing-glyph box): the label's text is its words alone.
    const icon = label.locator('svg')
    expect(await icon.count()).to.equal(1)
    const box = await icon.boundingBox()
    expect(box?.width).to.be.greaterThan(0)
    expect((await label.textContent())?.trim()).to.equal('Servers')
  })

  it('shows auth.password_min_length as its value and saves it from the settings page', async () => {
    await page.goto(`${url}/settings`)
    await page.getByLabel('Filter settings').fill('auth.password_min_length')
    const input = page.locator('#settings tr[data-key="auth.password_min_length"] input')
    await input.waitFor()
    expect(await input.inputValue()).to.equal('8')
    // What it is and its default, from the catalogue (issue 34, item 6); a unit where its name says one.
    expect(
      await page.locator('#settings tr[data-key="auth.password_min_length"] .setting-about').textContent(),
    ).to.equal('the shortest password accepted for a new or reset passwordDefault: 8')
    await page.getByLabel('Filter settings').fill('auth.login_window_s')
    await page.locator('#settings tr[data-key="auth.login_window_s"] .setting-about', { hasText: 'seconds' }).waitFor()
    await page.getByLabel('Filter settings').fill('auth.password_min_length')
    await input.fill('10')
    await page
      .locator('#settings tr[data-key="auth.password_min_length"]')
      .getByRole('button', { name: 'Save' })
      .click()
    await page.locator('.toast', { hasText: 'auth.password_min_length saved' }).waitFor()
    const one = await http(`${url}/api/settings/auth.password_min_length`, { token })
    expect(one.json.value, one.text).to.equal(10)
    const all = await http(`${url}/api/settings`, { token })
    expect(all.json.settings.auth.password_min_length, all.text).to.equal(10)
  })

  it("follows the new run's console live after Start and Restart from the server page", async () => {
    await page.goto(`${url}/servers/lobby`)
    await status('stopped').waitFor()
    await power('Start').click()
    // The boot lines come live (the run began after the page loaded its console).
    await bootLines().waitFor()
    await page.locator('#console .line', { hasText: 'Server started.' }).waitFor()
    await status('running').waitFor()
    await power('Restart').click()
    await bootLines().nth(1).waitFor()
    await status('running').waitFor()
  })

  it('enables only the power buttons the live status allows, and shows the PID of the run there is', async () => {
    await page.goto(`${url}/servers/lobby`)
    await status('running').waitFor()
    const first = await apiPid()
    await page.locator('[data-pid]', { hasText: String(first) }).waitFor()
    expect(await power('Start').isDisabled()).to.equal(true)
    expect(await power('Restart').isEnabled()).to.equal(true)
    expect(await power('Stop').isEnabled()).to.equal(true)

    await power('Restart').click()
    await page.locator('.toast', { hasText: 'restart lobby: done' }).waitFor()
    await status('running').waitFor()
    const second = await apiPid()
    expect(second).to.not.equal(first)
    await page.locator('[data-pid]', { hasText: String(second) }).waitFor()

    await power('Stop').click()
    await status('stopped').waitFor()
    await page.locator('[data-pid-label]').waitFor({ state: 'hidden' })
    await page.locator('.power[data-power-status="stopped"] [data-power="start"]:enabled').waitFor()
    expect(await power('Stop').isDisabled()).to.equal(true)
    expect(await power('Restart').isDisabled()).to.equal(true)

    await power('Start').click()
    await status('running').waitFor()
    await page.locator('.power[data-power-status="running"] [data-power="start"]:disabled').waitFor()
    const third = await apiPid()
    await page.locator('[data-pid]', { hasText: String(third) }).waitFor()
  })

  it("gives every toast a close button, lets a success go by itself, and keeps the schedule form's Add clickable under an error", async () => {
    await page.goto(`${url}/servers/lobby`)
    const form = page.locator('#schedule-form')
    await form.getByLabel('Cron expression').fill('not a cron expression')
    await form.getByRole('button', { name: 'Add' }).click()
    const error = page.locator('.toast-error')
    await error.waitFor()
    // The form is used with the error on the screen, by a plain click.
    await snap(page, 'error-toast', false)
    await form.getByLabel('Cron expression').fill('0 4 * * *')
    await form.getByRole('button', { name: 'Add' }).click()
    await page.locator('#schedules code', { hasText: '0 4 * * *' }).waitFor()

    await page.getByRole('button', { name: 'Back up now' }).click()
    const done = page.locator('.toast-success', { hasText: 'Backup: done' })
    await done.waitFor()
    expect(await done.getByRole('button', { name: 'Close' }).count()).to.equal(1)
    await done.waitFor({ state: 'detached' })

    await error.getByRole('button', { name: 'Close' }).click()
    await error.waitFor({ state: 'detached' })
  })

  it('says before a restore that the running server is stopped, restored and started again, after a safety backup', async () => {
    await page.goto(`${url}/servers/lobby`)
    await status('running').waitFor()
    await page.getByRole('button', { name: 'Back up now' }).click()
    await page.locator('#backup-status', { hasText: 'Backup: done' }).waitFor()
    const restore = page.locator('#backups').getByRole('button', { name: 'Restore' }).first()
    await restore.waitFor()
    await restore.click()
    const question = await answerDialog(page, false)
    expect(question).to.match(/lobby is running/)
    expect(question).to.match(/it will be stopped/)
    expect(question).to.match(/started again/)
    expect(question).to.match(/safety backup/)

    await restore.click()
    await answerDialog(page, true)
    await page.locator('#backup-status', { hasText: 'Restore: done' }).waitFor()
    await status('running').waitFor()
  })

  it("on a phone, keeps the dashboard's Restart and Stop in view", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      await page.goto(`${url}/`)
      const row = page.locator('tr[data-server="lobby"]')
      for (const name of ['Start', 'Restart', 'Stop']) {
        const button = row.getByRole('button', { name, exact: true })
        await button.waitFor()
        const box = await button.boundingBox()
        expect(box, name).to.not.equal(null)
        expect(box?.x, name).to.be.at.least(0)
        expect((box?.x ?? 0) + (box?.width ?? 0), name).to.be.at.most(390)
      }
      await snap(page, 'phone-dashboard')
      expect(await row.getByRole('button', { name: 'Stop', exact: true }).isEnabled()).to.equal(true)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390)
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  })

  it("on a phone, keeps the event log's entries a few lines tall, however long their payload", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      const note = 'a long note that goes on and on '.repeat(60)
      const set = await http(`${url}/api/settings/custom.long_note`, { method: 'PUT', token, body: { value: note } })
      expect(set.status, set.text).to.equal(200)
      await page.goto(`${url}/events`)
      await page.locator('#events li', { hasText: 'custom.long_note' }).first().waitFor()
      const { lineHeight, tallest } = await page.evaluate(() => ({
        lineHeight: Number.parseFloat(getComputedStyle(document.body).lineHeight),
        tallest: Math.max(
          ...[...document.querySelectorAll('#events li')].map((li) => li.getBoundingClientRect().height),
        ),
      }))
      await snap(page, 'phone-events', false)
      // A sentence (its value cut short) and a line of when and what: the 1,900-character note would be some 40 lines.
      expect(tallest).to.be.at.most(7 * lineHeight)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390)
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  })

  it('loaded nothing from outside the machine, and no page logged an error', () => {
    expect(run.outside).to.deep.equal([])
    expect(run.errors).to.deep.equal([])
  })
})
