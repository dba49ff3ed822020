import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { ProfileName } from './profiles'

/** The jar a Java Edition server directory runs: `server.jar`, or the only jar in it. */
export function serverJar(dir: string): string | undefined {
  if (existsSync(join(dir, 'server.jar'))) return 'server.jar'
  const jars = readdirSync(dir).filter((file) => file.endsWith('.jar'))
  return jars.length === 1 ? jars[0] : undefined
}

/** The profile a server directory looks like: bedrock with a bedrock_server, java with a server jar, else generic. */
export function detectProfile(dir: string): ProfileName {
  if (existsSync(join(dir, 'bedrock_server'))) return 'bedrock'
  if (serverJar(dir)) return 'java'
  return 'generic'
}
