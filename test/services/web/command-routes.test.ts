import { expect } from 'chai'
import { z } from 'zod'
import { type CommandsOf, command, defineCommands, type Service } from '../../../kernel'
import { apiReference } from '../../../services/plugins/api-reference'
import { plugin, trace, traced } from '../../helpers/plugins'
import { http, startWeb, type WebSetup } from '../../helpers/web'

/**
 * A command declared here, with an HTTP door and a `this.api` door and nothing else: no route
 * and no operation is written for it. A service of the test declares it as every service
 * declares its contract, so the web server started below derives its route from its kernel's
 * catalogue as it does the product's.
 */
const doorsCommands = defineCommands('doorstest', {
  'doorstest:echo': command(
    z.object({ name: z.string(), times: z.number().int().min(1).optional() }),
    z.object({ said: z.string() }),
    {
      http: {
        method: 'post',
        path: '/doorstest/:name/echo',
        name: 'doorstest_echo',
        summary: 'Say a name again (a door declared by a test)',
        tags: ['Doorstest'],
        access: 'moderator',
        key: 'echo',
        response: 'DoorsTestEcho',
        errors: { 404: 'No one of that name.' },
      },
      api: {
        name: 'doorsEcho',
        aliases: ['doors_echo'],
        kind: 'read',
        params: [{ field: 'name', as: 'who' }, 'times'],
        description: 'Says a name again (an operation declared by a test).',
      },
    },
  ),
})

declare module '../../../kernel/maps' {
  interface CommandMap extends CommandsOf<typeof doorsCommands> {}
}

/** The service that declares and answers it. */
const doorsService: Service = {
  name: 'doorstest',
  declares: [doorsCommands],
  start({ bus }) {
    bus.handle('doorstest:echo', ({ name, times }) => ({ said: name.repeat(times ?? 1) }))
  },
}

/**
 * A plugin (in a thread of its own, as plugins run) that calls the declared operation through
 * its `this.api`, by name and by alias, and with a bad argument, and traces what it got.
 */
const CALLER = plugin(
  'Caller',
  `override async onLoad() {
    const api = this.api as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
    const listed = ((await api.listAvailableApis()) as { name: string }[]).find((op) => op.name === 'doorsEcho')
    const said = await api.doorsEcho('bob', 2)
    const alias = await api.doors_echo('al')
    const bad = await api.doorsEcho('bob', 0).catch((error: { code?: string }) => error.code)
    ${trace('{ listed, said, alias, bad }')}
  }`,
)

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document read as it comes
type Json = any

describe('services/web: a thin route is its command declaration', function () {
  this.timeout(120_000)
  let web: WebSetup | undefined
  afterEach(async () => {
    await web?.manager.stop()
    web = undefined
  })

  it('answers, guards, validates and documents a route declared only on its command', async () => {
    web = await startWeb({ services: [doorsService] })
    const url = `${web.url}/api/doorstest/bob/echo`
    const moderator = await web.login('m', 'moderator')
    const said = await http(url, { token: moderator, body: { times: 2 } })
    expect([said.status, said.json]).to.deep.equal([200, { status: 'success', echo: { said: 'bobbob' } }])
    // The payload's own schema checks the body; the access the door says guards it.
    const bad = await http(url, { token: moderator, body: { times: 0 } })
    expect([bad.status, bad.json?.code]).to.deep.equal([422, 'SM_ERR_WEB_VALIDATION'])
    expect((await http(url, { body: {} })).status).to.equal(401)
    expect((await http(url, { token: await web.login('u', 'user'), body: {} })).status).to.equal(403)

    const document = (await http(`${web.url}/api/openapi.json`)).json as Json
    const operation = document.paths['/api/doorstest/{name}/echo']?.post as Json
    expect(operation.operationId).to.equal('doorstest_echo')
    expect(operation.summary).to.equal('Say a name again (a door declared by a test)')
    expect(operation.tags).to.deep.equal(['Doorstest'])
    expect(operation['x-required-role']).to.equal('moderator')
    expect(operation.parameters.map((p: Json) => [p.in, p.name])).to.deep.equal([['path', 'name']])
    expect(Object.keys(operation.requestBody.content['application/json'].schema.properties)).to.deep.equal(['times'])
    expect(operation.responses['200'].content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/DoorsTestEcho',
    })
    expect(operation.responses['404'].description).to.equal('No one of that name.')
    expect(Object.keys(operation.responses)).to.include.members(['401', '403', '422'])
    expect(document.components.schemas.DoorsTestEcho.properties.echo.properties).to.have.keys(['said'])
  })

  it("offers a command declared only on its contract through a real plugin's this.api and in the docs reference", async () => {
    web = await startWeb({ services: [doorsService], files: { 'caller.ts': CALLER }, enable: ['caller'] })
    const deadline = Date.now() + 30_000
    while (traced().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    const [seen] = traced<Json>()
    expect(seen.said).to.deep.equal({ said: 'bobbob' })
    expect(seen.alias).to.deep.equal({ said: 'al' })
    // The payload's own schema checks the argument, as a written operation's parameters do.
    expect(seen.bad).to.equal('SM_ERR_PLUGIN_API_BAD_ARGUMENT')
    expect(seen.listed).to.deep.equal({
      name: 'doorsEcho',
      aliases: ['doors_echo'],
      kind: 'read',
      parameters: [
        { name: 'who', type: 'string' },
        { name: 'times', type: 'number' },
      ],
      description: 'Says a name again (an operation declared by a test).',
    })
    // docs/plugins.md's reference, built from this kernel's catalogue, lists it too.
    expect(apiReference(web.manager.bus.catalogue.commands())).to.include(
      '| `doorsEcho(who: string, times: number)` | read | Says a name again (an operation declared by a test). | `doors_echo` |',
    )
  })
})
