import { expect } from 'chai'
import { http, startWeb, type WebSetup } from '../../helpers/web'

function types(node: unknown, into = new Set<string>()): Set<string> {
  if (node && typeof node === 'object') {
    const n = node as { type?: unknown; children?: unknown[]; props?: { rows?: unknown[][] } }
    if (typeof n.type === 'string') into.add(n.type)
    for (const child of n.children ?? []) types(child, into)
    for (const row of n.props?.rows ?? []) for (const cell of row) types(cell, into)
  }
  return into
}

describe('plugins/examples: the web examples', () => {
  let web: WebSetup
  afterEach(async () => {
    await web?.manager.stop()
  })

  it('web_example: a JSON GET route, a POST echo route and a template page in the base layout with its static files', async () => {
    web = await startWeb({ settings: { 'plugins.dev_examples': true }, enable: ['web_example'] })
    const info = await http(`${web.url}/web_example/info`, { token: web.admin })
    expect(info.json).to.include({ plugin: 'web_example', servers: 0 })
    const echo = await http(`${web.url}/api/web_example/echo`, { token: web.admin, body: { message: 'hi' } })
    expect(echo.json).to.deep.equal({
      status: 'success',
      data: { message: 'hi', count: 1 },
      message: 'Echoed 1 time(s).',
    })
    // Its page is in the sidebar (tag plugin-ui-page), opened at its own path.
    expect((await http(`${web.url}/api/plugins/pages`, { token: web.admin })).json.pages).to.deep.equal([
      { name: 'Web example', path: '/web_example/page', type: 'page' },
    ])
    const page = await http(`${web.url}/web_example/page`, { token: web.admin, headers: { Accept: 'text/html' } })
    expect(page.status).to.equal(200)
    expect(page.text).to.contain('<title>Web example · server-manager</title>')
    expect(page.text).to.contain('<link rel="stylesheet" href="/web_example/static/hello.css">')
    expect(page.text).to.contain('<script src="/web_example/static/hello.js"></script>')
    expect(page.text).to.contain('Hello, admin')
    expect((await http(`${web.url}/web_example/static/hello.css`)).text).to.contain('web-example-title')
  })

  it('native_page_example: a sidebar page drawing most components, and its form endpoint', async () => {
    web = await startWeb({ settings: { 'plugins.dev_examples': true }, enable: ['native_page_example'] })
    const pages = await http(`${web.url}/api/plugins/pages`, { token: web.admin })
    expect(pages.json.pages).to.deep.equal([
      { name: 'Component showcase', path: '/native_page_example/ui', type: 'native' },
    ])
    const page = await http(`${web.url}/native_page_example/ui`, { token: web.admin })
    expect(page.json.websocketSubscriptions).to.deep.equal(['server_log:{server}'])
    expect([...types(page.json)].sort()).to.include.members([
      'Container',
      'Text',
      'Tabs',
      'Tab',
      'Card',
      'Input',
      'Select',
      'Switch',
      'Checkbox',
      'Button',
      'Row',
      'Badge',
      'StatusIndicator',
      'Icon',
      'CodeBlock',
      'Link',
      'Divider',
      'Table',
      'Accordion',
      'Modal',
      'StatCard',
      'Chart',
      'LogViewer',
    ])
    const submitted = await http(`${web.url}/api/native_page_example/submit`, {
      token: web.admin,
      body: { message: 'x', loud: true },
    })
    expect(submitted.json).to.include({ status: 'success', message: 'Received: 2 fields' })
  })
})
