import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { ServerRecord } from './contract'
import { ServerProperties } from './server-properties'

const PROPERTIES = 'server.properties'

/** The world directory in effect: the one given, or for bedrock `worlds/<level-name>`. */
export function worldOf(server: ServerRecord): string | undefined {
  if (server.worldDir !== undefined) return resolve(server.dir, server.worldDir)
  if (server.profile !== 'bedrock') return undefined
  const level = existsSync(join(server.dir, PROPERTIES))
    ? new ServerProperties(readFileSync(join(server.dir, PROPERTIES), 'utf8')).get('level-name')
    : undefined
  return join(server.dir, 'worlds', level || 'Bedrock level')
}

/** The config files a backup of the server's configuration holds (those that exist are taken). */
export function configFiles(server: ServerRecord): readonly string[] {
  return server.profile === 'bedrock'
    ? ['server.properties', 'allowlist.json', 'permissions.json']
    : ['server.properties']
}
