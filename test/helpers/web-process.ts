import { expect } from 'chai'
import { cliIn } from './cli-in-process'
import { waitForLine } from './run'
import { signIn } from './web'

/** The URL a `server-manager start` process prints once its web server listens. */
export async function webUrl(manager: Parameters<typeof waitForLine>[0]): Promise<string> {
  const line = await waitForLine(manager, /web UI and API on http:\/\/\S+/)
  return /(http:\/\/\S+?)\s/.exec(`${line} `)?.[1] as string
}

/** The password of the admin `boss` that `adminSession` creates (to sign in a browser with). */
export const BOSS_PASSWORD = 'a long password'

/** Creates the admin `boss` through the CLI, in-process as a client of the manager running there (so the setup redirect ends), and signs in: a session token. */
export async function adminSession(dataDir: string, url: string): Promise<string> {
  const password = BOSS_PASSWORD
  const created = await cliIn(
    dataDir,
    ['user', 'create', 'boss', '--role', 'admin', '--password-stdin'],
    {},
    `${password}\n`,
  )
  expect(created.code, created.stderr).to.equal(0)
  return signIn(url, 'boss', password)
}
