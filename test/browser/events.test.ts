import { expect } from 'chai'
import { type BrowserRun, openInBrowser, signInPage, snap, userCommand } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'

/** Issue 34 item 6 in Debian's Chromium: the event log as an audit trail. */
describe('the event log as an audit trail (a real browser)', () => {
  let session: BrowserRun

  before(async () => {
    session = await openInBrowser(gameDataDir(), [
      userCommand('boss', 'admin', 'a good password'),
      ['server', 'add', 'alpha', '--dir', fakeBedrockDir()],
      ['server', 'add', 'beta', '--dir', fakeBedrockDir()],
      ['setting', 'set', 'auth.session_hours', '12'],
    ])
  })

  after(() => session?.close())

  it('says each fact as a sentence with who, what server and when, newest first; filters by server, who and kind; the raw JSON a click away', async () => {
    const { page, url } = session
    await signInPage(page, url, 'boss', 'a good password')
    await page.goto(`${url}/events`)
    const entries = page.locator('#events li')
    await entries.first().waitFor()
    // Newest first: the setting, then the servers in reverse order of adding, then the user.
    const sentences = (await entries.locator('p').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())
    const at = (text: string) => sentences.findIndex((s) => s.includes(text))
    expect(at('set auth.session_hours to 12'), sentences.join('\n')).to.be.greaterThan(-1)
    expect(at('added the server beta')).to.be.greaterThan(at('set auth.session_hours to 12'))
    expect(at('added the server alpha')).to.be.greaterThan(at('added the server beta'))
    expect(at('created the user boss (admin)')).to.be.greaterThan(at('added the server alpha'))
    expect(sentences[at('added the server alpha')]).to.match(/\(command line\) added the server alpha · alpha$/)
    await snap(page, 'events')

    // By server: only alpha's.
    await page.getByLabel('Server').selectOption('alpha')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForFunction(() => !document.querySelector('#events')?.textContent?.includes('beta'))
    expect(await entries.locator('p').allTextContents()).to.satisfy((all: string[]) =>
      all.every((t) => t.includes('alpha')),
    )
    // By kind: users and sign-in, whatever the server filter (cleared).
    await page.getByLabel('Server').selectOption('')
    await page.getByLabel('Kind').selectOption({ label: 'Users and sign-in' })
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.locator('#events li', { hasText: 'created the user boss' }).waitFor()
    await page.waitForFunction(() => !document.querySelector('#events')?.textContent?.includes('added the server'))
    // By who: nobody called zed did anything.
    await page.getByLabel('Who').fill('zed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.locator('#events li', { hasText: 'Nothing recorded matches.' }).waitFor()

    // The raw JSON, one click away.
    await page.getByLabel('Who').fill('')
    await page.getByRole('button', { name: 'Apply' }).click()
    const first = page.locator('#events li', { hasText: 'created the user boss' })
    await first.getByText('Raw JSON').click()
    expect(JSON.parse((await first.locator('pre.payload').textContent()) ?? '')).to.deep.include({
      type: 'auth:user_created',
    })
    expect(session.errors).to.deep.equal([])
  })
})
