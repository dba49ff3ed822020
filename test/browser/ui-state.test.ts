import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { type BrowserRun, openInBrowser, signInPage, userCommand } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'

/** Issue 34 item 4 in Debian's Chromium: what the panel offers is what can be done, and its messages do not pile up. */
describe('the panel offers only what can be done (a real browser)', () => {
  let session: BrowserRun
  let url: string
  let page: Page

  let world: string

  before(async () => {
    const dir = fakeBedrockDir()
    world = join(dir, 'worlds')
    session = await openInBrowser(gameDataDir(), [
      userCommand('boss', 'admin', 'a good password'),
      ['server', 'add', 'lobby', '--dir', dir],
    ])
    ;({ url, page } = session)
    await signInPage(page, url, 'boss', 'a good password')
  })

  after(() => session?.close())

  it('offers the last admin no demotion and no Delete, and an error toast once however often it comes; it goes by itself', async () => {
    // The page's own clock, moved on by hand: a toast's time passes without waiting for it.
    await page.clock.install()
    await page.goto(`${url}/users`)
    const boss = page.locator('#users tr', { hasText: 'boss' })
    await boss.getByRole('button', { name: 'Delete' }).waitFor()
    expect(await boss.getByRole('button', { name: 'Delete' }).isDisabled()).to.equal(true)
    expect(await boss.getByLabel('Role of boss').isDisabled()).to.equal(true)
    expect(await boss.getByRole('button', { name: 'Delete' }).getAttribute('title')).to.include('The last admin')

    const form = page.locator('#user-form')
    const add = async (name: string, role: string) => {
      await form.getByLabel('User name').fill(name)
      await form.getByLabel('Password').fill('another good password')
      await form.getByLabel('Role').selectOption(role)
      await form.getByRole('button', { name: 'Add user' }).click()
    }
    // The same refusal twice: one toast.
    await add('boss', 'user')
    const taken = page.locator('.toast-error', { hasText: "A user named 'boss' already exists" })
    await taken.waitFor()
    await add('boss', 'user')
    await page.waitForFunction(() => document.querySelectorAll('#toasts .toast').length === 1)
    expect(await taken.count()).to.equal(1)
    await page.clock.runFor(20_000)
    await taken.waitFor({ state: 'detached' })

    // A second admin: now either may be demoted or deleted.
    await add('ada', 'admin')
    const ada = page.locator('#users tr', { hasText: 'ada' })
    await ada.waitFor()
    await page.waitForFunction(() => {
      const select = document.querySelector('select[aria-label="Role of boss"]') as HTMLSelectElement | null
      return select !== null && !select.disabled
    })
    expect(await ada.getByRole('button', { name: 'Delete' }).isDisabled()).to.equal(false)
    expect(session.errors.filter((e) => !/\b409\b/.test(e))).to.deep.equal([])
  })

  it('offers Send only while the server is up, Remove only while it is down, and Update once a release is chosen', async () => {
    await page.goto(`${url}/servers/lobby`)
    const send = page.locator('#send-form').getByRole('button', { name: 'Send' })
    const remove = page.getByRole('button', { name: 'Remove, keep its files' })
    const update = page.locator('#update-form').getByRole('button', { name: 'Update' })
    await page.locator('[data-status]', { hasText: 'stopped' }).waitFor()
    expect(await send.isDisabled()).to.equal(true)
    expect(await remove.isDisabled()).to.equal(false)
    expect(await update.isDisabled()).to.equal(true)
    await page
      .getByLabel('Release archive')
      .setInputFiles({ name: 'release.zip', mimeType: 'application/zip', buffer: Buffer.from('PK') })
    expect(await update.isDisabled()).to.equal(false)

    await page.getByRole('button', { name: 'Start', exact: true }).click()
    await page.locator('[data-status]', { hasText: 'running' }).waitFor()
    await page.waitForFunction(() => {
      const button = document.querySelector('#send-form button[type="submit"]') as HTMLButtonElement | null
      return button !== null && !button.disabled
    })
    expect(await remove.isDisabled()).to.equal(true)
    expect(await remove.getAttribute('title')).to.equal('lobby is running: stop it first')
    await page.getByRole('button', { name: 'Stop', exact: true }).click()
    await page.locator('[data-status]', { hasText: 'stopped' }).waitFor()
    await page.waitForFunction(
      () => (document.querySelector('#send-form button[type="submit"]') as HTMLButtonElement).disabled,
    )
    expect(await remove.isDisabled()).to.equal(false)
  })

  it('echoes what is sent in the console, and recalls it with the up and down arrows', async () => {
    await page.goto(`${url}/servers/lobby`)
    await page.getByRole('button', { name: 'Start', exact: true }).click()
    await page.locator('[data-status]', { hasText: 'running' }).waitFor()
    const box = page.getByLabel('Console command')
    const send = async (command: string) => {
      const echoed = page.locator('#console .sent', { hasText: `> ${command}` })
      const before = await echoed.count()
      await box.fill(command)
      await page.locator('#send-form').getByRole('button', { name: 'Send' }).click()
      await echoed.nth(before).waitFor()
      // Its answer came: the box is cleared for the next one.
      await page.waitForFunction(
        () => (document.querySelector('#send-form input[name="command"]') as HTMLInputElement).value === '',
      )
    }
    await send('list')
    await send('say hello')
    await send('say hello')
    await box.fill('half typed')
    await box.press('ArrowUp')
    expect(await box.inputValue()).to.equal('say hello')
    await box.press('ArrowUp')
    expect(await box.inputValue()).to.equal('list')
    await box.press('ArrowUp')
    expect(await box.inputValue()).to.equal('list')
    await box.press('ArrowDown')
    expect(await box.inputValue()).to.equal('say hello')
    await box.press('ArrowDown')
    expect(await box.inputValue()).to.equal('half typed')
    // Across a reload of the page (this tab).
    await page.reload()
    await page.locator('[data-status]', { hasText: 'running' }).waitFor()
    await page.getByLabel('Console command').press('ArrowUp')
    expect(await page.getByLabel('Console command').inputValue()).to.equal('say hello')
    await page.getByRole('button', { name: 'Stop', exact: true }).click()
    await page.locator('[data-status]', { hasText: 'stopped' }).waitFor()
  })

  it('edits a schedule in place from the server page (issue 34, item 6)', async () => {
    await page.goto(`${url}/servers/lobby`)
    const form = page.locator('#schedule-form')
    await form.getByLabel('Cron expression').fill('0 4 * * *')
    await form.getByLabel('Action').selectOption('backup')
    await form.getByRole('button', { name: 'Add' }).click()
    const row = page.locator('#schedules tr', { hasText: '0 4 * * *' })
    await row.waitFor()
    await row.getByRole('button', { name: 'Edit' }).click()
    expect(await form.getByLabel('Cron expression').inputValue()).to.equal('0 4 * * *')
    await form.getByLabel('Cron expression').fill('15 3 * * *')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.locator('#schedules tr', { hasText: '15 3 * * *' }).waitFor()
    expect(await page.locator('#schedules tr').count()).to.equal(1)
    await form.getByRole('button', { name: 'Add' }).waitFor()
  })

  it('says a backup that failed failed, never that it is still under way', async () => {
    await page.goto(`${url}/servers/lobby`)
    // Its world gone: the backup begins (202), and its task fails.
    rmSync(world, { recursive: true, force: true })
    await page.getByRole('button', { name: 'Back up now' }).click()
    await page.locator('.toast-error', { hasText: 'no world directory' }).waitFor()
    expect(await page.locator('#backup-status').textContent()).to.match(/^Backup failed: .*no world directory/)
  })
})
