import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { answerDialog, type BrowserRun, openInBrowser, signInPage, userCommand } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'

/** The file manager page in Debian's Chromium against a real manager, as an admin uses it. */
describe('the file manager in a real browser', () => {
  let dir: string
  let session: BrowserRun
  let url: string
  let page: Page

  before(async () => {
    dir = fakeBedrockDir()
    session = await openInBrowser(gameDataDir(), [
      ['server', 'add', 'lobby', '--dir', dir],
      userCommand('admin', 'admin', 'a good password'),
    ])
    ;({ url, page } = session)
    await signInPage(page, url, 'admin', 'a good password')
  })

  after(() => session?.close())

  it("opens the server's files from its page and edits server.properties, the change on disk", async () => {
    await page.goto(`${url}/servers/lobby`)
    await page.getByRole('link', { name: 'Files' }).click()
    await page.waitForURL(`${url}/servers/lobby/files`)
    await page
      .locator('#entries tr[data-name="server.properties"]')
      .getByRole('button', { name: 'server.properties' })
      .click()
    const text = page.getByLabel('File text')
    await page.waitForFunction(() =>
      (document.getElementById('editor-text') as HTMLTextAreaElement | null)?.value.includes('server-name=Test'),
    )
    await text.fill((await text.inputValue()).replace('server-name=Test', 'server-name=From the browser'))
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.locator('.toast', { hasText: 'Saved server.properties' }).waitFor()
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.contain('server-name=From the browser\n')
  })

  it('shows a save of a file changed on disk meanwhile as a readable conflict, keeping the edit', async () => {
    writeFileSync(join(dir, 'server.properties'), 'server-name=Changed by the game\n')
    const text = page.getByLabel('File text')
    await text.fill(`${await text.inputValue()}max-players=8\n`)
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.locator('#editor-error', { hasText: 'was changed since it was read' }).waitFor()
    expect(await text.inputValue()).to.contain('max-players=8')
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.equal('server-name=Changed by the game\n')
  })

  it('makes a folder, uploads into it, downloads and deletes, each with its own control', async () => {
    await page.getByRole('button', { name: 'New folder' }).click()
    expect(await answerDialog(page, true, 'mods')).to.equal('Name of the new folder')
    await page.locator('#entries tr[data-name="mods"]').getByRole('link', { name: 'mods/' }).click()
    await page.locator('#crumbs', { hasText: 'mods' }).waitFor()
    await page.locator('#upload-input').setInputFiles({
      name: 'pack.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"pack": 1}\n'),
    })
    const row = page.locator('#entries tr[data-name="pack.json"]')
    await row.waitFor()
    expect(readFileSync(join(dir, 'mods', 'pack.json'), 'utf8')).to.equal('{"pack": 1}\n')
    if (process.env.SM_SCREENSHOTS)
      await page.screenshot({ path: join(process.env.SM_SCREENSHOTS, 'files.png'), fullPage: true })
    const download = await page.request.get(`${url}${await row.locator('a[download]').getAttribute('href')}`)
    expect(download.status()).to.equal(200)
    expect(await download.text()).to.equal('{"pack": 1}\n')
    await row.getByRole('button', { name: 'Delete' }).click()
    expect(await answerDialog(page, true)).to.equal('Delete mods/pack.json? This cannot be undone.')
    await page.locator('#entries', { hasText: 'This folder is empty.' }).waitFor()
    expect(existsSync(join(dir, 'mods', 'pack.json'))).to.equal(false)
  })

  it('loaded nothing from outside the machine, and no page logged an error', () => {
    expect(session.outside).to.deep.equal([])
    expect(session.errors).to.deep.equal([])
  })
})
