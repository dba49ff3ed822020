import { expect } from 'chai'
import { z } from 'zod'
import { Bus, BusScope } from '../../kernel'
import { createManager, silentLogger } from '../../manager'
import { BridgeClient } from '../../services/bridge/client'
import { managerCatalogue } from '../helpers/manager'
import { rejection } from '../helpers/rejection'
import { spawnManager, stop, waitForLine } from '../helpers/run'
import { tempDir } from '../helpers/temp-dir'

type JsonSchema = {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  minimum?: number
  format?: string
  additionalProperties?: JsonSchema | boolean
}

/** A value that fits a JSON schema, every optional field filled in (so each is exercised). */
function sample(schema: JsonSchema): unknown {
  if ('const' in schema) return schema.const
  if (schema.enum) return schema.enum[0]
  const union = schema.anyOf ?? schema.oneOf
  if (union) return sample(union[0] as JsonSchema)
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part) => sample(part)))
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, field]) => [key, sample(field)]))
    case 'array':
      return schema.items ? [sample(schema.items)] : []
    case 'string':
      // A string of a declared format is one of that format.
      return schema.format === 'uuid' ? '2f1c6a9e-4b7d-4c1a-9e3f-5a6b7c8d9e0f' : 'text'
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1)
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      // Any value: one with nesting, as a payload's free part has.
      return { nested: [1, 'two', { three: true }] }
  }
}

/** A JSON round trip keeps the value the schema reads from `value`, exactly. */
function roundTrips(schema: z.ZodType, where: string): void {
  let json: JsonSchema
  try {
    json = z.toJSONSchema(schema) as JsonSchema
  } catch (error) {
    throw new Error(`${where} is not plain data: ${(error as Error).message}`)
  }
  const read = schema.safeParse(sample(json))
  expect(read.success, `${where}: its own sample does not fit: ${read.error?.message}`).to.equal(true)
  const again = schema.safeParse(JSON.parse(JSON.stringify(read.data)))
  expect(again.success, `${where}: its JSON round trip does not fit`).to.equal(true)
  expect(again.data, `${where}: changed by a JSON round trip`).to.deep.equal(read.data)
}

describe('kernel/contracts: every bus message is declared plain data', () => {
  it('sends every declared command (payload and reply) and every event through a JSON round trip', () => {
    const catalogue = managerCatalogue()
    const commands = catalogue.commands()
    const events = catalogue.events()
    expect(commands.length).to.be.above(40)
    expect(events.length).to.be.above(20)
    for (const { name, spec } of commands) {
      roundTrips(spec.payload, `the payload of ${name}`)
      // A command that answers nothing has no reply to send.
      if (!spec.reply.safeParse(undefined).success || spec.reply.safeParse({}).success)
        roundTrips(spec.reply, `the reply of ${name}`)
    }
    for (const { name, spec } of events) roundTrips(spec, `the event ${name}`)
  })

  it('has a handler for every declared command in a running manager, and no command nobody declared', async () => {
    const manager = createManager({
      dataDir: tempDir(),
      logger: silentLogger,
      daemon: true,
      web: { host: '127.0.0.1', port: 0 },
    })
    await manager.start()
    try {
      const declared = new Set(manager.catalogue.commands().map((c) => c.name))
      expect([...declared].filter((name) => !manager.bus.hasHandler(name))).to.deep.equal([])
      expect(manager.bus.commandNames().filter((name) => !declared.has(name))).to.deep.equal([])
    } finally {
      await manager.stop()
    }
  })

  it('answers an undeclared command or a payload that does not fit with a coded 4xx error over the bridge', async () => {
    const dataDir = tempDir()
    const manager = await spawnManager(dataDir)
    try {
      await waitForLine(manager, /ready in/)
      const client = await BridgeClient.connect(dataDir)
      if (!client) throw new Error('the manager does not answer on its socket')
      try {
        const undeclared = await rejection(client.request('nosuch:thing', {}, 'cli:tester'))
        expect(undeclared.code).to.equal('SM_ERR_BUS_UNDECLARED')
        expect(undeclared.status).to.equal(404)
        for (const [command, payload] of [
          ['settings:get', { key: 5 }],
          ['settings:get', 'not an object'],
          ['tasks:list', { limit: 'many' }],
          ['auth:set_role', { username: 'x', role: 'owner' }],
          // Once recorded a task that failed with SM_ERR_INTERNAL "work is not a function".
          ['servers:begin', { action: 'bogus', name: 'x' }],
        ] as const) {
          const bad = await rejection(client.request(command, payload, 'cli:tester'))
          expect(bad.code, `${command} ${JSON.stringify(payload)}`).to.equal('SM_ERR_BUS_BAD_PAYLOAD')
          expect(bad.status).to.equal(400)
          expect(bad.message).to.contain(command)
        }
        // Fields nobody declared never reach the handler; the declared ones still work.
        const got = await client.request('settings:get', { key: 'web.port', sneaky: true }, 'cli:tester')
        expect(got).to.include({ found: true })
      } finally {
        client.close()
      }
    } finally {
      await stop(manager)
    }
  })
})

describe('kernel/contracts: namespaces are owned', () => {
  it('lets a service emit only its own events and hooks, and a plugin only custom ones', async () => {
    const bus = new Bus({ checkMessages: false, catalogue: managerCatalogue() })
    const servers = new BusScope(bus, 'servers', 'servers')
    const settings = new BusScope(bus, 'settings', 'settings')
    const plugin = new BusScope(bus, 'plugins', 'plugins').child('plugin:spoof')
    await servers.emit('servers:added', { server: {} as never })
    await settings.emit('before_setting_update', { key: 'custom.x', value: 1 })
    await plugin.emit('~custom:spoof:hello' as 'x:y', {})
    for (const [scope, event, owner] of [
      [settings, 'servers:added', 'servers'],
      [plugin, 'servers:added', 'servers'],
      [servers, 'after_setting_update', 'settings'],
      [plugin, 'before_server_start', 'servers'],
    ] as const) {
      const refused = await rejection(scope.emit(event as 'x:y', {}))
      expect(refused.code, `${scope.owner} → ${event}`).to.equal('SM_ERR_BUS_NOT_OWNER')
      expect(refused.message).to.contain(owner)
      expect(refused.status).to.equal(403)
    }
    // No namespace, or an owned namespace with a name nobody declared: refused too.
    const bare = 'server_added' // keep-old-name
    for (const event of [bare, 'servers:made_up', 'tasks:whatever']) {
      const refused = await rejection(servers.emit(event as 'x:y', {}))
      expect(refused.code, event).to.equal('SM_ERR_BUS_UNDECLARED')
    }
  })
})
