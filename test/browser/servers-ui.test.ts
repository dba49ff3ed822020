import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { answerDialog, type BrowserRun, openInBrowser, signInPage, userCommand } from '../helpers/browser'
import { cliIn } from '../helpers/cli-in-process'
import { FAKE_BEDROCK, gameDataDir } from '../helpers/game'
import { tempDir } from '../helpers/temp-dir'
import { writeZip } from '../helpers/zip'

/** A Bedrock release as Mojang ships it (the tests' stand-in), with a version marker. */
async function release(version: string): Promise<string> {
  const file = join(tempDir(), `bedrock-server-${version}.zip`)
  await writeZip(file, {
    bedrock_server: `#!/bin/sh\nexec '${process.execPath}' '${FAKE_BEDROCK}' "$@"\n`,
    'server.properties': 'server-name=Dedicated Server\nlevel-name=Bedrock level\n',
    'release-notes.txt': `version ${version}\n`,
  })
  return file
}

/**
 * Servers managed from the web UI alone (issue 20, item 1), in Debian's Chromium against a real
 * manager: an admin installs one from an uploaded archive, sets its own settings, updates it and
 * removes it; a moderator is offered none of the admin work.
 */
describe('the web UI: servers installed, configured, updated and removed from the browser', () => {
  let dataDir: string
  let session: BrowserRun
  let url: string
  let page: Page

  const signIn = (username: string, password: string) => signInPage(page, url, username, password)

  before(async () => {
    dataDir = gameDataDir()
    session = await openInBrowser(dataDir, [
      userCommand('admin', 'admin', 'an admin password'),
      userCommand('mod', 'moderator', 'a moderator password'),
    ])
    ;({ url, page } = session)
  })

  after(() => session?.close())

  it('installs a server from an uploaded archive, from the dashboard, and opens its page', async () => {
    await signIn('admin', 'an admin password')
    await page.getByRole('link', { name: 'Add a server' }).first().click()
    await page.waitForURL(`${url}/add-server`)
    const install = page.locator('#install-form')
    await install.getByLabel('Name').fill('fresh')
    await install.getByLabel('Archive').setInputFiles(await release('1.21.50'))
    await install.getByRole('button', { name: 'Install' }).click()
    await page.waitForURL(`${url}/servers/fresh`)
    await page.locator('[data-status]', { hasText: 'stopped' }).waitFor()
    const dir = join(dataDir, 'server-files', 'fresh')
    expect(readdirSync(dir).sort()).to.deep.equal(['bedrock_server', 'release-notes.txt', 'server.properties'])
  })

  it("changes the server's own settings from its page, one kept and one given back to the global setting", async () => {
    const form = page.locator('#config-form')
    await form.getByLabel('autostart').selectOption('true')
    await form.getByLabel('retention.backups', { exact: true }).fill('2')
    await form.getByRole('button', { name: 'Save settings' }).click()
    await page.locator('.toast', { hasText: 'Settings saved.' }).waitFor()
    const read = async (key: string) =>
      JSON.parse((await cliIn(dataDir, ['server', 'config', 'fresh', key, '--json'])).stdout)
    expect(await read('autostart')).to.equal(true)
    expect(await read('retention.backups')).to.equal(2)
    // The saved form shows its own values again; emptying one makes it inherit. (The same message
    // again replaces the one shown: this one is closed first, so the next is the second save's.)
    const saved = page.locator('.toast', { hasText: 'Settings saved.' })
    await saved.getByRole('button', { name: 'Close' }).click()
    await saved.waitFor({ state: 'detached' })
    await form.getByLabel('retention.backups', { exact: true }).fill('')
    await form.getByRole('button', { name: 'Save settings' }).click()
    await saved.waitFor()
    expect(await read('retention.backups')).to.equal(3)
  })

  it('updates it from an uploaded release, keeping its config', async () => {
    await page
      .locator('#update-form')
      .getByLabel('Release archive')
      .setInputFiles(await release('1.21.60'))
    await page.locator('#update-form').getByRole('button', { name: 'Update' }).click()
    await page.locator('#update-status', { hasText: 'Updated: replaced' }).waitFor()
    const dir = join(dataDir, 'server-files', 'fresh')
    expect(readFileSync(join(dir, 'release-notes.txt'), 'utf8')).to.equal('version 1.21.60\n')
  })

  it('removes it keeping its files, after saying so', async () => {
    await page.getByRole('button', { name: 'Remove, keep its files' }).click()
    const asked = await answerDialog(page, true)
    await page.waitForURL(`${url}/`)
    expect(asked).to.equal("Remove 'fresh' from server-manager? Its files stay where they are.")
    expect(existsSync(join(dataDir, 'server-files', 'fresh', 'bedrock_server'))).to.equal(true)
    await page.getByText('No server yet.').waitFor()
  })

  it('offers a moderator no install, update or removal, and the add page refuses them', async () => {
    expect(
      (await cliIn(dataDir, ['server', 'add', 'kept', '--dir', join(dataDir, 'server-files', 'fresh')])).code,
    ).to.equal(0)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await signIn('mod', 'a moderator password')
    expect(await page.getByRole('link', { name: 'Add a server' }).count()).to.equal(0)
    await page.goto(`${url}/servers/kept`)
    await page.locator('#config-form').waitFor()
    expect(await page.locator('#update-form').count()).to.equal(0)
    expect(await page.locator('[data-remove]').count()).to.equal(0)
    const refused = await page.goto(`${url}/add-server`)
    expect(refused?.status()).to.equal(403)
  })

  it('loaded nothing from outside the machine, and no page logged an error', () => {
    expect(session.outside).to.deep.equal([])
    // The moderator's visit to the add page was refused on purpose.
    expect(session.errors.filter((e) => !/403/.test(e))).to.deep.equal([])
  })
})
