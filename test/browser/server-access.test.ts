import { expect } from 'chai'
import { type BrowserRun, openInBrowser, pageErrors, signInPage, snap, userCommand } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir, killServers } from '../helpers/game'

/** Issue 34 item 1 in Debian's Chromium: an admin grants a user one server from its page; the user's panel shows only that. */
describe('per-server access in a real browser', () => {
  let session: BrowserRun
  const dataDir = gameDataDir()

  before(async () => {
    session = await openInBrowser(dataDir, [
      userCommand('admin', 'admin', 'a good password'),
      userCommand('ann', 'user', 'anns password'),
      ['server', 'add', 's1', '--dir', fakeBedrockDir()],
      ['server', 'add', 's2', '--dir', fakeBedrockDir()],
    ])
  })

  after(async () => {
    await session?.close()
    killServers(dataDir)
  })

  it('grants console on one server from its Access section; the user sees only it, with its console and no power', async () => {
    const { page, url } = session
    await signInPage(page, url, 'admin', 'a good password')
    await page.goto(`${url}/servers/s1`)
    const access = page.locator('#server-access')
    await access.getByLabel('User to grant rights').selectOption('ann')
    await access.getByLabel('console').check()
    await access.getByRole('button', { name: 'Grant' }).click()
    await page.locator('.toast', { hasText: 'ann may now on s1: view, console' }).waitFor()
    await access.locator('tr', { hasText: 'ann' }).getByRole('cell', { name: 'view, console' }).waitFor()
    await snap(page, 'server-access')
    await page.goto(`${url}/users`)
    await page.locator('#users tr', { hasText: 'ann' }).getByRole('link', { name: 's1' }).waitFor()

    // Ann, in a browser of her own.
    const ann = await session.newPage()
    const annErrors = pageErrors(ann)
    await signInPage(ann, url, 'ann', 'anns password')
    expect(await ann.locator('table.servers tbody tr').allTextContents()).to.have.length(1)
    await ann.getByRole('link', { name: 's1' }).waitFor()
    expect(await ann.getByRole('button', { name: 'Start' }).count()).to.equal(0)
    await ann.getByRole('link', { name: 's1' }).click()
    await ann.waitForURL(`${url}/servers/s1`)
    await ann.getByLabel('Console command').waitFor()
    // Stopped: Send waits for a start she may not make; no power, backups or admin sections.
    expect(await ann.getByRole('button', { name: 'Send' }).isDisabled()).to.equal(true)
    for (const hidden of ['.power', '#backups', '#server-settings', '#server-remove', '#server-access'])
      expect(await ann.locator(hidden).count(), hidden).to.equal(0)
    await snap(ann, 'server-access-user')
    const other = await ann.goto(`${url}/servers/s2`)
    expect(other?.status()).to.equal(404)

    // Revoked from the Users page: the rights shown are hers; she is held to no server now.
    await page.goto(`${url}/users`)
    const grant = page.locator('#grant-form')
    await grant.getByLabel('User', { exact: true }).selectOption('ann')
    await grant.getByLabel('Server', { exact: true }).selectOption('s1')
    expect(await grant.getByLabel('console').isChecked()).to.equal(true)
    await grant.getByRole('button', { name: 'Revoke' }).click()
    await page.locator('.toast', { hasText: 'ann may now on s1: nothing' }).waitFor()
    await page.locator('#users tr', { hasText: 'ann' }).getByRole('cell', { name: 'none All servers' }).waitFor()
    await ann.goto(`${url}/`)
    expect(await ann.locator('table.servers tbody tr').count()).to.equal(0)
    // "All servers" gives back the user role's reach on every server.
    await page.locator('#users tr', { hasText: 'ann' }).getByRole('button', { name: 'All servers' }).click()
    await page.locator('.toast', { hasText: "ann has the user role's reach on every server again" }).waitFor()
    await ann.goto(`${url}/`)
    expect(await ann.locator('table.servers tbody tr').count()).to.equal(2)

    expect(annErrors.filter((e) => !e.endsWith('/servers/s2'))).to.deep.equal([])
    expect(session.errors).to.deep.equal([])
    await ann.close()
  })

  it('a user granted console and power starts the server and commands it; a revocation ends that at once', async () => {
    const { page, url } = session
    await page.goto(`${url}/servers/s1`)
    const access = page.locator('#server-access')
    await access.getByLabel('User to grant rights').selectOption('ann')
    await access.getByLabel('console').check()
    await access.getByLabel('power').check()
    await access.getByRole('button', { name: 'Grant' }).click()
    await page.locator('.toast', { hasText: 'ann may now on s1: view, console, power' }).waitFor()

    const ann = await session.newPage()
    const annErrors = pageErrors(ann)
    await signInPage(ann, url, 'ann', 'anns password')
    expect(await ann.locator('table.servers tbody tr').count()).to.equal(1)
    await ann.goto(`${url}/servers/s1`)
    await ann.locator('.power').getByRole('button', { name: 'Start', exact: true }).click()
    await ann.locator('[data-status]', { hasText: 'running' }).waitFor()
    await ann.getByLabel('Console command').fill('list')
    await ann.locator('#send-form').getByRole('button', { name: 'Send' }).click()
    await ann.locator('#reply', { hasText: 'players online' }).waitFor()

    // Revoked while her page is open: her next command is refused, as if the server were not there.
    await access.locator('tr', { hasText: 'ann' }).getByRole('button', { name: 'Revoke' }).click()
    await page.locator('.toast', { hasText: 'ann may no longer see s1' }).waitFor()
    await ann.getByLabel('Console command').fill('list')
    await ann.locator('#send-form').getByRole('button', { name: 'Send' }).click()
    await ann.locator('.toast-error', { hasText: "No server is named 's1'" }).waitFor()
    await page.locator('.power').getByRole('button', { name: 'Stop', exact: true }).click()
    await page.locator('[data-status]', { hasText: 'stopped' }).waitFor()
    expect(annErrors.filter((e) => !/ 404 /.test(` ${e} `) && !e.includes('/command'))).to.deep.equal([])
    await ann.close()
  })
})
