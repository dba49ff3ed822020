import { mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { answerDialog, type BrowserRun, chartDrawn, openInBrowser, signInPage, userCommand } from '../helpers/browser'
import { FAKE_BEDROCK, fakeJavaDir, gameDataDir } from '../helpers/game'
import { ROOT } from '../helpers/run'
import { tempDir } from '../helpers/temp-dir'
import { writeZip } from '../helpers/zip'

/** A game as the walk installs it: the archives of two releases, and how a player joins its stand-in. */
interface Game {
  readonly title: string
  readonly release: (version: string) => Promise<string>
  readonly eula: boolean
  /** The console command that makes the stand-in's player Steve join. */
  readonly join: string
  /** The manager's environment (a Java runtime on PATH). */
  readonly env: NodeJS.ProcessEnv
}

const bedrock = (): Game => ({
  title: 'Bedrock',
  release: async (version) => {
    const file = join(tempDir(), `bedrock-server-${version}.zip`)
    await writeZip(file, {
      bedrock_server: `#!/bin/sh\nexec '${process.execPath}' '${FAKE_BEDROCK}' "$@"\n`,
      'server.properties': 'server-name=Walk\nlevel-name=Bedrock level\nmax-players=10\n',
      'release-notes.txt': `version ${version}\n`,
    })
    return file
  },
  eula: false,
  join: 'fakejoin Steve 2535412345678901',
  env: {},
})

/** Java Edition: a zip of a server folder (its jar and server.properties), run by the tests' `java`. */
const java = (): Game => {
  const { java: runtime } = fakeJavaDir()
  return {
    title: 'Java Edition',
    release: async (version) => {
      const file = join(tempDir(), `paper-${version}.zip`)
      await writeZip(file, {
        'server.jar': `a server jar, version ${version}`,
        'server.properties': 'motd=Walk\nlevel-name=world\nmax-players=20\n',
        'release-notes.txt': `version ${version}\n`,
      })
      return file
    },
    eula: true,
    join: 'fakejoin Steve',
    env: { PATH: `${dirname(runtime)}:${process.env.PATH}` },
  }
}

/** With SM_WRITE_DOCS=1, the page at `width`x`height` goes to docs/screenshots/<name>.png (for the README). */
async function screenshot(page: Page, name: string, width: number, height: number) {
  if (process.env.SM_WRITE_DOCS !== '1') return
  await page.setViewportSize({ width, height })
  // The page from its top, without the toasts of what the walk just did.
  await page.evaluate(() => {
    for (const toast of document.querySelectorAll('.toast')) toast.remove()
    window.scrollTo(0, 0)
  })
  const dir = join(ROOT, 'docs', 'screenshots')
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}-${width}x${height}.png`) })
  await page.setViewportSize({ width: 1280, height: 800 })
}

/** With SM_WRITE_DOCS=1, one part of the page goes to docs/screenshots/<name>.png (for the README). */
async function sectionShot(part: import('playwright-core').Locator, name: string) {
  if (process.env.SM_WRITE_DOCS !== '1') return
  await part.evaluate(() => {
    for (const toast of document.querySelectorAll('.toast')) toast.remove()
  })
  await part.screenshot({ path: join(ROOT, 'docs', 'screenshots', `${name}.png`) })
}

/**
 * What issue 20 asks a panel to do from the web alone, in Debian's Chromium against a real
 * manager: an admin installs a server from an uploaded archive, configures it, starts it, sees a
 * player join and its CPU and memory charts draw, edits server.properties in the file manager,
 * backs it up, restores, updates and removes it; a moderator is offered none of the admin work,
 * and the API refuses it them.
 */
for (const make of [bedrock, java]) {
  describe(`the web UI walk, as an admin and a moderator: a ${make().title} server`, function () {
    this.timeout(180_000)
    let game: Game
    let dataDir: string
    let session: BrowserRun
    let url: string
    let page: Page
    const dir = () => join(dataDir, 'server-files', 'walk')

    before(async () => {
      game = make()
      dataDir = gameDataDir()
      session = await openInBrowser(
        dataDir,
        [
          ['setting', 'set', 'metrics.interval_s', '1'],
          userCommand('admin', 'admin', 'an admin password'),
          userCommand('mod', 'moderator', 'a moderator password'),
        ],
        game.env,
      )
      ;({ url, page } = session)
      await page.setViewportSize({ width: 1280, height: 800 })
    })

    after(() => session?.close())

    it('installs it from an uploaded archive and configures it', async () => {
      await signInPage(page, url, 'admin', 'an admin password')
      await page.getByRole('link', { name: 'Add a server' }).first().click()
      const install = page.locator('#install-form')
      await install.getByLabel('Name').fill('walk')
      await install.getByLabel('Archive').setInputFiles(await game.release('1.0'))
      await install.getByRole('button', { name: 'Install' }).click()
      await page.waitForURL(`${url}/servers/walk`)
      const form = page.locator('#config-form')
      await form.getByLabel('autostart').selectOption('true')
      await form.getByRole('button', { name: 'Save settings' }).click()
      await page.locator('.toast', { hasText: 'Settings saved.' }).waitFor()
    })

    it('starts it (accepting its EULA first where it has one), sees a player join and its charts draw', async () => {
      if (game.eula) {
        await page.getByRole('button', { name: 'I have read the EULA and accept it' }).click()
        await page.locator('.toast', { hasText: /accepted/i }).waitFor()
      }
      await page.locator('.power').getByRole('button', { name: 'Start', exact: true }).click()
      await page.locator('[data-status]', { hasText: 'running' }).first().waitFor()
      await page.getByLabel('Console command').fill(game.join)
      await page.getByRole('button', { name: 'Send' }).click()
      await page.locator('#players-online [data-player="Steve"]').waitFor()
      await chartDrawn(page, '#metrics')
      await screenshot(page, `server-${game.title === 'Bedrock' ? 'bedrock' : 'java'}`, 1280, 800)
    })

    it('edits server.properties in the file manager', async () => {
      await page.getByRole('link', { name: 'Files' }).click()
      await page.waitForURL(`${url}/servers/walk/files`)
      await page
        .locator('#entries tr[data-name="server.properties"]')
        .getByRole('button', { name: 'server.properties' })
        .click()
      await page.waitForFunction(() =>
        (document.getElementById('editor-text') as HTMLTextAreaElement | null)?.value.includes('max-players='),
      )
      const text = page.getByLabel('File text')
      await text.fill((await text.inputValue()).replace(/max-players=\d+/, 'max-players=7'))
      await page.getByRole('button', { name: 'Save', exact: true }).click()
      await page.locator('.toast', { hasText: 'Saved server.properties' }).waitFor()
      expect(readFileSync(join(dir(), 'server.properties'), 'utf8')).to.contain('max-players=7\n')
    })

    it('backs it up and restores the backup, saying first that the running server is stopped for it', async () => {
      await page.goto(`${url}/servers/walk`)
      await page.getByRole('button', { name: 'Back up now' }).click()
      await page.locator('#backup-status', { hasText: 'Backup: done' }).waitFor()
      await page.locator('#backups').getByRole('button', { name: 'Restore' }).first().click()
      const asked = await answerDialog(page, true)
      await page.locator('#backup-status', { hasText: 'Restore: done' }).waitFor()
      expect(asked).to.match(/stop/i)
      await page.locator('[data-status]', { hasText: 'running' }).first().waitFor()
    })

    it('updates it from an uploaded release, stopping and starting it, config kept', async () => {
      await page
        .locator('#update-form')
        .getByLabel('Release archive')
        .setInputFiles(await game.release('2.0'))
      await page
        .locator('#update-form')
        .getByLabel(/stop it for the update/)
        .check()
      await page.locator('#update-form').getByRole('button', { name: 'Update' }).click()
      await page.locator('#update-status', { hasText: 'Updated: replaced' }).waitFor()
      expect(readFileSync(join(dir(), 'release-notes.txt'), 'utf8')).to.equal('version 2.0\n')
      expect(readFileSync(join(dir(), 'server.properties'), 'utf8')).to.contain('max-players=7\n')
      await page.goto(`${url}/`)
      await screenshot(page, 'dashboard', 1280, 800)
      await screenshot(page, 'dashboard', 390, 844)
      await page.goto(`${url}/servers/walk`)
      await screenshot(page, 'server', 390, 844)
    })

    it('offers a moderator no install, update, file or allowlist controls, and the API refuses them', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(/\/login/)
      await signInPage(page, url, 'mod', 'a moderator password')
      expect(await page.getByRole('link', { name: 'Add a server' }).count()).to.equal(0)
      await page.goto(`${url}/servers/walk`)
      await page.locator('#config-form').waitFor()
      for (const control of ['#update-form', '[data-remove]', '#allowlist', '#operators'])
        expect(await page.locator(control).count(), control).to.equal(0)
      expect(await page.getByRole('link', { name: 'Files' }).count()).to.equal(0)
      const token = (await (
        await page.request.post(`${url}/auth/token`, {
          data: { username: 'mod', password: 'a moderator password' },
        })
      ).json()) as { access_token: string }
      const headers = { Authorization: `Bearer ${token.access_token}` }
      const refused = [
        await page.request.post(`${url}/api/servers/install`, { headers, multipart: { name: 'x' } }),
        await page.request.post(`${url}/api/servers/walk/update`, { headers, multipart: { stop: 'true' } }),
        await page.request.get(`${url}/api/servers/walk/files?path=`, { headers }),
        await page.request.post(`${url}/api/servers/walk/allowlist`, { headers, data: { player: 'Alex' } }),
        await page.request.delete(`${url}/api/servers/walk`, { headers }),
      ]
      expect(refused.map((r) => r.status())).to.deep.equal([403, 403, 403, 403, 403])
    })

    it('grants the moderator rights on it alone from its Access section, and begins two-factor enrolment (once, for the README)', async () => {
      if (game.title !== 'Bedrock') return
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(/\/login/)
      await signInPage(page, url, 'admin', 'an admin password')
      await page.goto(`${url}/servers/walk`)
      const access = page.locator('#server-access')
      await access.getByLabel('User to grant rights').selectOption('mod')
      for (const right of ['console', 'power', 'backups']) await access.getByLabel(right, { exact: true }).check()
      await access.getByRole('button', { name: 'Grant' }).click()
      await access
        .locator('tr', { hasText: 'mod' })
        .getByRole('cell', { name: 'view, console, power, backups' })
        .waitFor()
      await sectionShot(access, 'server-access')
      await page.goto(`${url}/users`)
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()
      await page.getByRole('img', { name: 'QR code of the secret for your authenticator app' }).waitFor()
      await sectionShot(page.locator('#two-factor'), 'two-factor')
      await sectionShot(page.locator('#users').locator('xpath=ancestor::article'), 'users')
    })

    it('stops it while the page still asks its status (late answers do not undo the stop), and removes it as an admin, its files kept', async () => {
      if (!(await page.getByRole('button', { name: 'Sign out' }).isVisible())) await page.goto(`${url}/`)
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(/\/login/)
      await signInPage(page, url, 'admin', 'an admin password')
      // The page asks the server's status as its live stream opens (its badge, its players and its
      // charts each do): those answers, read while the server runs, are held until the stop has
      // come over the stream, and must not put 'running' back after it.
      let release: () => void = () => {}
      const released = new Promise<void>((resolve) => {
        release = resolve
      })
      let read = 0
      let seen = 0
      let allRead: () => void = () => {}
      const threeRead = new Promise<void>((resolve) => {
        allRead = resolve
      })
      await page.route(`${url}/api/servers/walk/status`, async (route) => {
        // Only those three: the stop's task reopens the stream, and the asks then must go through.
        if (++seen > 3) return route.continue()
        const response = await route.fetch()
        if (++read === 3) allRead()
        await released
        await route.fulfill({ response })
      })
      await page.goto(`${url}/servers/walk`)
      await threeRead
      // The badge says it is being asked.
      await page.locator('[data-status][aria-busy="true"]').first().waitFor()
      await page.locator('.power').getByRole('button', { name: 'Stop', exact: true }).click()
      await page.locator('[data-status]', { hasText: 'stopped' }).first().waitFor()
      release()
      // Busy until every ask of the badge is answered: the late ones were dropped, not shown.
      await page.locator('[data-status]:not([aria-busy])').first().waitFor()
      expect(await page.locator('[data-status]').first().textContent()).to.equal('stopped')
      await page.locator('#players-online', { hasText: 'the server is stopped' }).waitFor()
      await page.locator('#metrics .metric', { hasText: 'Uptime' }).getByText('not running').waitFor()
      await page.unroute(`${url}/api/servers/walk/status`)
      await page.getByRole('button', { name: 'Remove, keep its files' }).click()
      await answerDialog(page, true)
      await page.waitForURL(`${url}/`)
      await page.getByText('No server yet.').waitFor()
      expect(readFileSync(join(dir(), 'release-notes.txt'), 'utf8')).to.equal('version 2.0\n')
    })

    it('loaded nothing from outside the machine, and no page logged an error', () => {
      expect(session.outside).to.deep.equal([])
      expect(session.errors).to.deep.equal([])
    })
  })
}
