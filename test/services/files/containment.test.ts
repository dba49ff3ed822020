import { createHash } from 'node:crypto'
import { mkdirSync, openAsBlob, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { fakeBedrockDir } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'
import { postFile } from '../../helpers/upload'
import { http, type Reply, startWeb, type WebSetup } from '../../helpers/web'

/** Every file under `dir` with the hash of its bytes (links as their text): to show nothing there changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (at: string, rel: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      const key = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) walk(path, key)
      else if (entry.isFile())
        out[key] = `${createHash('sha256').update(readFileSync(path)).digest('hex')} ${statSync(path).mtimeMs}`
      else out[key] = entry.isSymbolicLink() ? 'link' : 'other'
    }
  }
  walk(dir, '')
  return out
}

/**
 * The attacks a file manager must refuse. The tests run as root on some machines, so nothing in
 * /etc is ever the target of a write, rename or delete here: those go at a folder of the test's
 * own outside the server directory (and at the data directory), which is checked untouched.
 */
describe("services/files: nothing outside a server's directory is reached", function () {
  this.timeout(120_000)
  let web: WebSetup
  let dir: string
  let outside: string
  let was: { outside: Record<string, string>; passwd: string }
  const api = (path: string, options: Parameters<typeof http>[1] = {}) =>
    http(`${web.url}/api/servers/alpha/files${path}`, { token: web.admin, ...options })
  const refused = (reply: Reply, status: number, code: string, what: string) =>
    expect([reply.status, reply.json?.code], `${what}: ${reply.text}`).to.deep.equal([status, code])

  before(async () => {
    web = await startWeb()
    dir = fakeBedrockDir()
    outside = tempDir('sm-outside-')
    mkdirSync(join(outside, 'sub'))
    writeFileSync(join(outside, 'victim.txt'), 'do not touch\n')
    writeFileSync(join(outside, 'sub', 'deep.txt'), 'deep\n')
    mkdirSync(join(dir, 'config'))
    writeFileSync(join(dir, 'config', 'ok.txt'), 'inside\n')
    symlinkSync('/etc', join(dir, 'etc'))
    symlinkSync('/etc/hostname', join(dir, 'hostname'))
    symlinkSync(web.dataDir, join(dir, 'data'))
    symlinkSync(outside, join(dir, 'out'))
    symlinkSync(join(outside, 'victim.txt'), join(dir, 'victim-link'))
    // A link inside whose folder is a link out: a parent on the way leads out.
    mkdirSync(join(dir, 'deeper'))
    symlinkSync('../out/sub', join(dir, 'deeper', 'sub'))
    symlinkSync('config', join(dir, 'inner'))
    await web.manager.bus.request('servers:add', { name: 'alpha', dir })
    was = { outside: snapshot(outside), passwd: readFileSync('/etc/passwd', 'utf8') }
  })
  after(async () => {
    try {
      expect(snapshot(outside), 'the outside folder').to.deep.equal(was.outside)
      expect(readFileSync('/etc/passwd', 'utf8')).to.equal(was.passwd)
    } finally {
      await web?.manager.stop()
    }
  })

  it("refuses '..', absolute paths, encoded traversal and NUL bytes by their text, in every route", async () => {
    const paths = [
      '../out/victim.txt',
      'config/../../out/victim.txt',
      '..',
      '/etc/passwd',
      join(outside, 'victim.txt'),
      'config/ok.txt\0.txt',
      '\0',
    ]
    for (const path of paths) {
      const q = `?path=${encodeURIComponent(path)}`
      const code = 'SM_ERR_FILE_PATH_INVALID'
      refused(await api(q), 422, code, `list ${path}`)
      refused(await api(`/text${q}`), 422, code, `read ${path}`)
      refused(await api(`/download${q}`), 422, code, `download ${path}`)
      refused(await api('/text', { method: 'PUT', body: { path, text: 'x' } }), 422, code, `write ${path}`)
      refused(await api('/mkdir', { body: { path } }), 422, code, `mkdir ${path}`)
      refused(await api(`${q}`, { method: 'DELETE' }), 422, code, `delete ${path}`)
      refused(await api('/rename', { body: { path, to: 'moved' } }), 422, code, `rename from ${path}`)
      refused(await api('/rename', { body: { path: 'config/ok.txt', to: path } }), 422, code, `rename to ${path}`)
    }
    // Encoded in the query as a browser or script might: decoded once, then refused by its text.
    refused(await api('/text?path=%2e%2e%2fout%2fvictim.txt'), 422, 'SM_ERR_FILE_PATH_INVALID', 'encoded ../')
    refused(await api('/text?path=%2E%2E/%2E%2E/etc/passwd'), 422, 'SM_ERR_FILE_PATH_INVALID', 'encoded ..')
    refused(await api('/text?path=config%2Fok.txt%00'), 422, 'SM_ERR_FILE_PATH_INVALID', 'encoded NUL')
    // Encoded twice, it is a name like any other: nothing of that name is there.
    refused(await api('/text?path=%252e%252e%252fout%252fvictim.txt'), 404, 'SM_ERR_FILE_NOT_FOUND', 'double encoded')
    // And in the URL path it is no route at all.
    const pathTraversal = await http(`${web.url}/api/servers/alpha/files/..%2F..%2F..%2Fetc%2Fpasswd`, {
      token: web.admin,
    })
    expect(pathTraversal.status).to.equal(404)
    expect(pathTraversal.text).to.not.contain('root:')
  })

  it('refuses a link inside that points to /etc: listing, reading, downloading through it', async () => {
    const listing = await api('')
    const link = (name: string) => listing.json.entries.find((e: { name: string }) => e.name === name)
    expect(link('etc')).to.include({ type: 'link', link: 'outside' })
    expect(link('hostname')).to.include({ type: 'link', link: 'outside' })
    expect(link('inner')).to.include({ type: 'link', link: 'directory' })
    for (const [what, reply] of [
      ['list etc', await api('?path=etc')],
      ['list etc/ssh', await api('?path=etc/ssh')],
      ['read etc/passwd', await api('/text?path=etc/passwd')],
      ['read hostname', await api('/text?path=hostname')],
      ['download etc/passwd', await api('/download?path=etc/passwd')],
      ['download hostname', await api('/download?path=hostname')],
    ] as const) {
      refused(reply, 403, 'SM_ERR_FILE_OUTSIDE', what)
      expect(reply.text, what).to.not.contain('root:')
    }
  })

  it('refuses writes, uploads, new folders, renames and deletes through a link out, and through a linked parent', async () => {
    const read = (path: string) => api(`/text?path=${encodeURIComponent(path)}`)
    refused(await read('victim-link'), 403, 'SM_ERR_FILE_OUTSIDE', 'read a file link out')
    refused(await read('out/victim.txt'), 403, 'SM_ERR_FILE_OUTSIDE', 'read through a folder link out')
    refused(await read('deeper/sub/deep.txt'), 403, 'SM_ERR_FILE_OUTSIDE', 'read through a linked parent')
    const hash = createHash('sha256').update('do not touch\n').digest('hex')
    for (const path of ['victim-link', 'out/victim.txt', 'out/new.txt', 'deeper/sub/deep.txt', 'data/new.txt']) {
      refused(
        await api('/text', { method: 'PUT', body: { path, text: 'overwritten\n', expected_hash: hash } }),
        403,
        'SM_ERR_FILE_OUTSIDE',
        `write ${path}`,
      )
      const source = join(tempDir(), 'upload.txt')
      writeFileSync(source, 'uploaded\n')
      const uploaded = await postFile(
        `${web.url}/api/servers/alpha/files/upload`,
        web.admin,
        { path, overwrite: 'true' },
        await openAsBlob(source),
      )
      refused(uploaded, 403, 'SM_ERR_FILE_OUTSIDE', `upload ${path}`)
    }
    for (const path of ['out/newdir', 'deeper/sub/newdir', 'data/newdir'])
      refused(await api('/mkdir', { body: { path } }), 403, 'SM_ERR_FILE_OUTSIDE', `mkdir ${path}`)
    for (const path of ['out/victim.txt', 'out/sub', 'deeper/sub/deep.txt', 'data/server-manager.db'])
      refused(
        await api(`?path=${encodeURIComponent(path)}`, { method: 'DELETE' }),
        403,
        'SM_ERR_FILE_OUTSIDE',
        `delete ${path}`,
      )
    for (const [from, to] of [
      ['out/victim.txt', 'stolen.txt'],
      ['deeper/sub/deep.txt', 'stolen.txt'],
      ['data/server-manager.db', 'stolen.db'],
      ['config/ok.txt', 'out/planted.txt'],
      ['config/ok.txt', 'deeper/sub/planted.txt'],
      ['config', 'data/planted'],
    ])
      refused(await api('/rename', { body: { path: from, to } }), 403, 'SM_ERR_FILE_OUTSIDE', `rename ${from} → ${to}`)
    refused(await api('?path=data'), 403, 'SM_ERR_FILE_OUTSIDE', 'list the data directory')
    refused(await api('/text?path=data/server-manager.db'), 403, 'SM_ERR_FILE_OUTSIDE', 'read the database')
    expect(snapshot(outside)).to.deep.equal(was.outside)
    expect(readdirSync(web.dataDir)).to.include('server-manager.db')
    expect(readdirSync(web.dataDir)).to.not.include.members(['new.txt', 'newdir', 'planted', 'stolen.db'])
    expect(readFileSync(join(dir, 'config', 'ok.txt'), 'utf8')).to.equal('inside\n')
  })

  it('follows a link that stays inside, and deletes a link out as a link, leaving its target whole', async () => {
    const inner = await api('/text?path=inner/ok.txt')
    expect(inner.status, inner.text).to.equal(200)
    expect(inner.json.text).to.equal('inside\n')
    // Never the link to /etc: were the link followed, that delete would be of /etc itself.
    for (const link of ['out', 'victim-link']) {
      const removed = await api(`?path=${link}`, { method: 'DELETE' })
      expect(removed.status, removed.text).to.equal(200)
      expect(removed.json.kind).to.equal('link')
    }
    expect(readdirSync(dir)).to.not.include.members(['out', 'victim-link'])
    expect(snapshot(outside)).to.deep.equal(was.outside)
    expect(statSync('/etc/passwd').isFile()).to.equal(true)
  })
})
