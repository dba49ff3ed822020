import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { type BrowserRun, openInBrowser, signInPage, snap, userCommand } from '../helpers/browser'
import { fakeBedrockDir, gameDataDir } from '../helpers/game'

/** What is wrong with the page as a phone shows it: sideways scrolling, controls off screen or crushed, no mobile viewport. */
function phoneProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = []
    const width = window.innerWidth
    if (!document.querySelector('meta[name="viewport"][content*="width=device-width"]'))
      problems.push('no mobile viewport (<meta name="viewport" content="width=device-width">)')
    if (document.documentElement.scrollWidth > width)
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide`)
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}"`
    const controls = document.querySelectorAll(
      'button, input:not([type=hidden]), select, textarea, a[role=button], label[role=button], .actions a',
    )
    for (const control of controls) {
      const box = control.getBoundingClientRect()
      const style = getComputedStyle(control)
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue // not shown
      if (control.closest('dialog:not([open]), [hidden], .sidebar:not(.open)')) continue
      if (box.left < -1 || box.right > width + 1)
        problems.push(`${name(control)} is off screen (${Math.round(box.left)}..${Math.round(box.right)} of ${width})`)
      // A field too narrow to show what is typed; a button or link whose text does not fit (an icon's may be small).
      const field = ['INPUT', 'SELECT', 'TEXTAREA'].includes(control.tagName)
      const isBox = ['checkbox', 'radio', 'file'].includes((control as HTMLInputElement).type)
      if (field && !isBox && box.width < 60) problems.push(`${name(control)} is crushed to ${Math.round(box.width)} px`)
      if (
        control.scrollWidth > control.clientWidth + 2 &&
        control.tagName !== 'SELECT' &&
        control.tagName !== 'INPUT' &&
        control.tagName !== 'TEXTAREA'
      )
        problems.push(`${name(control)} cuts its text (${control.scrollWidth} > ${control.clientWidth})`)
    }
    return problems
  })
}

/** Issue 34 item 3 in Debian's Chromium: every page at 390x844, as a phone shows it. */
describe('every page on a phone (390x844, a real browser)', function () {
  // The API docs page draws a large document: on a loaded machine it takes longer than mocha's 30 s.
  this.timeout(120_000)
  let session: BrowserRun
  let phone: Page

  before(async () => {
    const dir = fakeBedrockDir()
    mkdirSync(join(dir, 'worlds', 'Bedrock level'), { recursive: true })
    writeFileSync(join(dir, 'worlds', 'Bedrock level', 'level.dat'), 'a world')
    session = await openInBrowser(gameDataDir(), [
      userCommand('admin', 'admin', 'a good password'),
      userCommand('ann', 'moderator', 'a good password'),
      ['server', 'add', 'lobby', '--dir', dir],
      ['server', 'schedule', 'add', 'lobby', '--cron', '0 4 * * *', '--action', 'backup'],
      ['server', 'backup', 'lobby'],
    ])
    phone = await session.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
    await signInPage(phone, session.url, 'admin', 'a good password')
  })

  after(() => session?.close())

  const pages = [
    ['dashboard', '/', 'table.servers'],
    ['server', '/servers/lobby', '#backups tr'],
    ['files', '/servers/lobby/files', '#entries tr'],
    ['add-server', '/add-server', 'form'],
    ['plugins', '/plugins', 'main'],
    ['settings', '/settings', '#settings'],
    ['users', '/users', '#users tr'],
    ['events', '/events', 'main'],
    ['tasks', '/tasks', 'main'],
    ['hosts', '/hosts', 'main'],
    ['docs', '/docs', '.swagger-ui .info'],
  ] as const

  for (const [title, path, ready] of pages)
    it(`${title}: nothing scrolls sideways, no control is off screen or crushed`, async () => {
      await phone.goto(`${session.url}${path}`)
      await phone.locator(ready).first().waitFor()
      await phone.waitForLoadState('networkidle')
      await snap(phone, `phone-${title}`)
      expect(await phoneProblems(phone)).to.deep.equal([])
    })

  it('the sign-in page, and no page logged an error', async () => {
    const other = await session.newPage({ viewport: { width: 390, height: 844 }, isMobile: true })
    await other.goto(`${session.url}/login`)
    await other.getByLabel('User name').waitFor()
    expect(await phoneProblems(other)).to.deep.equal([])
    await other.close()
    expect(session.errors).to.deep.equal([])
  })
})
