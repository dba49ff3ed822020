import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { SmError } from '../../kernel/errors'
import { writeFileWhole } from '../../lib/whole-file'
import type { ServerRecord } from './contract'
import { gameProfile } from './profiles'
import { ServerProperties } from './server-properties'

/** Where the Minecraft EULA is, as the game's own eula.txt names it. */
export const EULA_URL = 'https://aka.ms/MinecraftEULA'

/** A server's EULA file and whether it says the EULA is accepted (`eula=true`). */
export function eulaState(server: ServerRecord): { readonly file: string; readonly accepted: boolean } {
  const file = join(server.dir, 'eula.txt')
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  return { file, accepted: new ServerProperties(text).get('eula')?.trim().toLowerCase() === 'true' }
}

/** Writes `eula=true` as the game itself would (its comment naming the EULA), whole or not at all. */
export function acceptEula(server: ServerRecord): void {
  const { file } = eulaState(server)
  const text = [
    `#By changing the setting below to TRUE you are indicating your agreement to our EULA (${EULA_URL}).`,
    `#Accepted with server-manager on ${new Date().toUTCString()}`,
    'eula=true',
    '',
  ].join('\n')
  writeFileWhole(file, text, 0o644)
}

/**
 * What must hold before a server starts, by its profile: an accepted EULA, and for a game run
 * by `java`, a Java runtime that answers `java -version`.
 */
export async function checkStartable(server: ServerRecord): Promise<void> {
  const profile = gameProfile(server)
  if (profile.eula && !eulaState(server).accepted)
    throw new SmError('SM_ERR_SERVER_EULA_REQUIRED', { server: server.name, url: EULA_URL })
  if (basename(server.command) !== 'java') return
  const problem = await new Promise<string | undefined>((resolve) =>
    execFile(
      server.command,
      ['-version'],
      { cwd: server.dir, env: { ...process.env, ...server.env }, timeout: 60_000 },
      (error) => resolve(error ? error.message.split('\n')[0] : undefined),
    ),
  )
  if (problem)
    throw new SmError('SM_ERR_SERVER_JAVA_MISSING', { server: server.name, command: server.command, reason: problem })
}
