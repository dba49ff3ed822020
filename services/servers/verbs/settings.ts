import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type BusScope, performAction, SmError } from '../../../kernel'
import { writeFileWhole } from '../../../lib/whole-file'
import type { ServerRecord } from '../contract'
import { settled } from '../control-checks'
import { propertyProblem, ServerProperties } from '../server-properties'
import {
  allServerSettings,
  checkCustomCount,
  checkServerSetting,
  serverSetting,
  serverSettingViews,
} from '../server-settings'
import type { VerbTable } from './context'

const PROPERTIES = 'server.properties'

/** A server's own settings (`server config`) and its game's server.properties. */
export const settingVerbs = {
  'servers:properties': async (ctx, { name }) => readProperties(await ctx.find(name)).entries(),
  'servers:set_properties': async (ctx, { name, properties }) =>
    setProperties(ctx.bus, await ctx.find(name), properties),
  'servers:get_setting': async (ctx, { name, key }) => {
    const server = await ctx.find(name)
    if (key === undefined) return { value: await allServerSettings(server, ctx.setting) }
    checkServerSetting(name, key, undefined)
    return { value: await serverSetting(server, key, ctx.setting) }
  },
  'servers:set_setting': async (ctx, { name, key, value }) => {
    const server = await ctx.find(name)
    checkServerSetting(name, key, value)
    checkCustomCount(server, [[key, value]])
    const previous = await serverSetting(server, key, ctx.setting)
    await ctx.bus.emit('servers:setting_changed', { name, key, value })
    return {
      key,
      value: value === undefined ? await serverSetting(await ctx.find(name), key, ctx.setting) : value,
      previous,
    }
  },
  'servers:settings': async (ctx, { name }) => serverSettingViews(await ctx.find(name), ctx.setting),
  // A form's changes: every one checked before any is made, so a bad one changes nothing.
  'servers:set_settings': async (ctx, { name, settings }) => {
    const server = await ctx.find(name)
    const changes = Object.entries(settings ?? {}).map(([key, value]) => [key, value ?? undefined] as const)
    for (const [key, value] of changes) checkServerSetting(name, key, value)
    checkCustomCount(server, changes)
    for (const [key, value] of changes) await ctx.bus.emit('servers:setting_changed', { name, key, value })
    return serverSettingViews(await ctx.find(name), ctx.setting)
  },
} satisfies VerbTable

function readProperties(server: ServerRecord): ServerProperties {
  const file = join(server.dir, PROPERTIES)
  if (!existsSync(file)) throw new SmError('SM_ERR_SERVER_PROPERTIES_MISSING', { server: server.name, file })
  return new ServerProperties(readFileSync(file, 'utf8'))
}

async function setProperties(bus: BusScope, server: ServerRecord, properties: Record<string, string>) {
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties))
    throw new SmError('SM_ERR_SERVER_PROPERTY_INVALID', {
      server: server.name,
      key: '(properties)',
      reason: 'give the changes as an object of key → value',
    })
  const file = readProperties(server)
  const present = Object.keys(file.entries())
  // Null-prototype records: every key in them is one the caller gave (a `__proto__` key is data).
  const wanted: Record<string, string> = Object.create(null)
  for (const [key, raw] of Object.entries(properties)) {
    const value = String(raw)
    const problem = propertyProblem(key, value, present)
    if (problem) throw new SmError('SM_ERR_SERVER_PROPERTY_INVALID', { server: server.name, key, reason: problem })
    wanted[key] = value
  }
  const outcome = await performAction(bus, {
    before: 'before_properties_change',
    after: 'after_properties_change',
    payload: { serverName: server.name, properties: wanted },
    perform: async () => {
      const changed: Record<string, { from: string | undefined; to: string }> = Object.create(null)
      // Only what differs is a change: a form sends every key, with one edited.
      for (const [key, value] of Object.entries(wanted)) {
        if (file.get(key) === value) continue
        changed[key] = { from: file.get(key), to: value }
        file.set(key, value)
      }
      // A crash leaves the old file or the new one.
      writeFileWhole(join(server.dir, PROPERTIES), file.toString())
      return { changed }
    },
    message: () => `server.properties of '${server.name}' updated.`,
  })
  return settled(outcome, server.name, 'The server.properties change of')
}
