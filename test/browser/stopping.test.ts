import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { type BrowserRun, openInBrowser, signInPage, userCommand } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'
import { writePlugins } from '../helpers/plugins'

/**
 * A plugin that holds the first stop in its before_server_stop hook (as the players' warning
 * does) until the test lets it go, then refuses it; later stops pass.
 */
const holdFirstStop = (release: string, vetoed: string) => `
import { existsSync, writeFileSync } from 'node:fs'
import { PluginBase } from 'server-manager'
export default class Holdstop extends PluginBase {
  static version = '1.0.0'
  async beforeServerStop() {
    if (existsSync(${JSON.stringify(vetoed)})) return undefined
    while (!existsSync(${JSON.stringify(release)})) await new Promise((resolve) => setTimeout(resolve, 20))
    writeFileSync(${JSON.stringify(vetoed)}, '')
    return { cancel: true, reason: 'the test held it' }
  }
}
`

/** Issue 34 item 4 in Debian's Chromium: while a stop's hooks run (players warned), the panel says stopping. */
describe('a stop under way is shown as one (a real browser)', () => {
  let session: BrowserRun

  after(() => session?.close())

  it('says stopping and offers no Stop or Restart while the hooks run; back to running when a plugin refuses the stop', async () => {
    const data = gameDataDir()
    const release = join(data, 'release-stop')
    const vetoed = join(data, 'vetoed')
    writePlugins(data, { 'holdstop.ts': holdFirstStop(release, vetoed) })
    session = await openInBrowser(data, [
      userCommand('boss', 'admin', 'a good password'),
      ['plugin', 'enable', 'holdstop'],
      ['server', 'add', 'lobby', '--dir', fakeBedrockDir()],
    ])
    const { page, url } = session
    await signInPage(page, url, 'boss', 'a good password')
    await page.goto(`${url}/servers/lobby`)
    const button = (name: string) => page.locator('.power').getByRole('button', { name, exact: true })
    await button('Start').click()
    await page.locator('[data-status]', { hasText: 'running' }).waitFor()

    await button('Stop').click()
    await page.locator('[data-status]', { hasText: 'stopping' }).waitFor()
    for (const name of ['Stop', 'Restart', 'Start']) expect(await button(name).isDisabled(), name).to.equal(true)
    expect(existsSync(vetoed)).to.equal(false) // still held: this is the hooks' time
    writeFileSync(release, '')
    await page.locator('[data-status]', { hasText: 'running' }).waitFor()
    await page.locator('.toast-error', { hasText: 'the test held it' }).waitFor()
    await page.waitForFunction(() => !(document.querySelector('[data-power="stop"]') as HTMLButtonElement).disabled)

    await button('Stop').click()
    await page.locator('[data-status]', { hasText: 'stopped' }).waitFor()
    expect(session.errors).to.deep.equal([])
  })
})
