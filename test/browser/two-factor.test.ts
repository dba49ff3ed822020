import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { type BrowserRun, openInBrowser, signInPage, snap, userCommand } from '../helpers/browser'
import { tempDir } from '../helpers/temp-dir'
import { base32, totp } from '../helpers/totp'

/** Issue 34 item 2 in Debian's Chromium: enrolling from the Users page, then signing in with a code. */
describe('two-factor sign-in in a real browser', () => {
  let session: BrowserRun
  let url: string
  let page: Page

  before(async () => {
    session = await openInBrowser(tempDir(), [userCommand('admin', 'admin', 'a good password')])
    ;({ url, page } = session)
    await signInPage(page, url, 'admin', 'a good password')
  })

  after(() => session?.close())

  it('turns it on with the QR code and a code from the app, shows the recovery codes once, and asks for a code at the next sign-in', async () => {
    await page.goto(`${url}/users`)
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()
    const qr = page.getByRole('img', { name: 'QR code of the secret for your authenticator app' })
    await qr.waitFor()
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).to.equal(true)
    const key = base32((await page.locator('#tf-secret').textContent()) ?? '')
    await page.getByLabel('Code from the app').fill(totp(key))
    await page.getByRole('button', { name: 'Confirm' }).click()
    await page.locator('.toast', { hasText: 'Two-factor sign-in is on' }).waitFor()
    const codes = ((await page.locator('#tf-codes .token').textContent()) ?? '').split('\n')
    expect(codes).to.have.length(10)
    await snap(page, 'two-factor-on')

    // Every session of the account ended with it: the next sign-in asks for a code.
    await page.getByRole('button', { name: 'I have saved them: sign in again' }).click()
    await page.waitForURL(/\/login/)
    await page.getByLabel('User name').fill('admin')
    await page.getByLabel('Password').fill('a good password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    const code = page.getByLabel('Code from your authenticator app (or a recovery code)')
    await code.waitFor()
    await page.getByRole('alert').filter({ hasText: 'Type the code your authenticator app shows' }).waitFor()
    await snap(page, 'two-factor-sign-in')
    await code.fill(totp(key, 30))
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${url}/users`)
    await page.locator('#tf-status', { hasText: 'Recovery codes left: 10' }).waitFor()
    await page.locator('#users tr', { hasText: 'admin' }).getByRole('cell', { name: 'on', exact: true }).waitFor()
    expect(session.errors.filter((e) => !e.includes('401'))).to.deep.equal([])
    expect(session.outside).to.deep.equal([])
  })
})
