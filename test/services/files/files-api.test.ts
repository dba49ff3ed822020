import { createHash, randomBytes } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openAsBlob,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { fakeBedrockDir, killServers } from '../../helpers/game'
import { plugin } from '../../helpers/plugins'
import { afterItsUser } from '../../helpers/run-end'
import { tempDir } from '../../helpers/temp-dir'
import { postFile } from '../../helpers/upload'
import { http, type Reply, startWeb, type WebSetup } from '../../helpers/web'

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')

/** A multipart upload of the file at `file` (streamed from disk) to `path`. */
async function upload(web: WebSetup, token: string, path: string, file: string, overwrite = false): Promise<Reply> {
  const fields: Record<string, string> = overwrite ? { path, overwrite: 'true' } : { path }
  return postFile(`${web.url}/api/servers/alpha/files/upload`, token, fields, await openAsBlob(file))
}

/** The files of a folder but the manager's own temporary ones (none may be left). */
const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('.sm-'))

describe("services/files: a server's files over HTTP, for admins", function () {
  this.timeout(120_000)
  let web: WebSetup
  let dir: string
  const api = (path: string, options: Parameters<typeof http>[1] = {}) =>
    http(`${web.url}/api/servers/alpha/files${path}`, { token: web.admin, ...options })

  before(async () => {
    web = await startWeb()
    dir = fakeBedrockDir()
    mkdirSync(join(dir, 'worlds', 'Bedrock level'), { recursive: true })
    mkdirSync(join(dir, 'config'))
    writeFileSync(join(dir, 'config', 'settings.json'), '{"a": 1}\n')
    writeFileSync(join(dir, 'allowlist.json'), '[]\n')
    symlinkSync('config', join(dir, 'settings-link'))
    await web.manager.bus.request('servers:add', { name: 'alpha', dir })
  })
  after(async () => {
    await web?.manager.stop()
  })

  it('lists a folder: folders (and links to folders) first, then files, each by name, with size and time', async () => {
    const listing = await api('')
    expect(listing.status, listing.text).to.equal(200)
    expect(listing.json.path).to.equal('')
    const names = listing.json.entries.map((e: { name: string }) => e.name)
    expect(names.slice(0, 3)).to.deep.equal(['config', 'settings-link', 'worlds'])
    expect(names.slice(3)).to.deep.equal([...names.slice(3)].sort())
    const properties = listing.json.entries.find((e: { name: string }) => e.name === 'server.properties')
    expect(properties).to.include({ type: 'file', size: statSync(join(dir, 'server.properties')).size })
    expect(Date.parse(properties.mtime)).to.equal(statSync(join(dir, 'server.properties')).mtime.getTime())
    expect(listing.json.entries.find((e: { name: string }) => e.name === 'settings-link')).to.include({
      type: 'link',
      link: 'directory',
    })
    const nested = await api('?path=settings-link')
    expect(nested.json.entries.map((e: { name: string }) => e.name)).to.deep.equal(['settings.json'])
    const notFolder = await api('?path=server.properties')
    expect([notFolder.status, notFolder.json.code]).to.deep.equal([422, 'SM_ERR_FILE_WRONG_TYPE'])
    const missing = await api('?path=nothing/here')
    expect([missing.status, missing.json.code]).to.deep.equal([404, 'SM_ERR_FILE_NOT_FOUND'])
  })

  it('shows a text file with its hash, and refuses binary and too large ones saying to download them', async () => {
    const text = await api('/text?path=config/settings.json')
    expect(text.status, text.text).to.equal(200)
    expect(text.json).to.include({ path: 'config/settings.json', text: '{"a": 1}\n', hash: sha('{"a": 1}\n'), size: 9 })
    writeFileSync(join(dir, 'level.dat'), Buffer.from([0x0a, 0x00, 0x00, 0x01]))
    const binary = await api('/text?path=level.dat')
    expect([binary.status, binary.json.code]).to.deep.equal([422, 'SM_ERR_FILE_NOT_TEXT'])
    expect(binary.json.message).to.contain('binary').and.to.contain('Download it instead')
    writeFileSync(join(dir, 'big.log'), 'x'.repeat(600 * 1024))
    const big = await api('/text?path=big.log')
    expect([big.status, big.json.code]).to.deep.equal([422, 'SM_ERR_FILE_NOT_TEXT'])
    expect(big.json.message).to.contain('files.max_text_kb').and.to.contain('Download it instead')
    const folder = await api('/text?path=config')
    expect([folder.status, folder.json.code]).to.deep.equal([422, 'SM_ERR_FILE_WRONG_TYPE'])
  })

  it('saves a text file atomically, keeping its mode, and refuses a save of a file changed since it was read', async () => {
    const file = join(dir, 'server.properties')
    chmodSync(file, 0o640)
    const inode = statSync(file).ino
    const read = await api('/text?path=server.properties')
    const edited = read.json.text.replace('server-name=Test', 'server-name=Edited')
    const saved = await api('/text', {
      method: 'PUT',
      body: { path: 'server.properties', text: edited, expected_hash: read.json.hash },
    })
    expect(saved.status, saved.text).to.equal(200)
    expect(saved.json).to.include({ path: 'server.properties', running: false, created: false, hash: sha(edited) })
    expect(readFileSync(file, 'utf8')).to.equal(edited)
    expect(statSync(file).mode & 0o777).to.equal(0o640)
    expect(statSync(file).ino, 'a new file renamed over the old one').to.not.equal(inode)
    expect(leftovers(dir)).to.deep.equal([])

    // The hash read before the save is stale now: a second tab's save is refused, the file stays.
    const stale = await api('/text', {
      method: 'PUT',
      body: { path: 'server.properties', text: 'lost update\n', expected_hash: read.json.hash },
    })
    expect([stale.status, stale.json.code]).to.deep.equal([409, 'SM_ERR_FILE_CHANGED'])
    expect(stale.json.message).to.contain('Open it again')
    expect(readFileSync(file, 'utf8')).to.equal(edited)
    // A change by the game (or anyone) on disk counts the same.
    writeFileSync(file, `${edited}max-players=5\n`)
    const behind = await api('/text', {
      method: 'PUT',
      body: { path: 'server.properties', text: edited, expected_hash: saved.json.hash },
    })
    expect([behind.status, behind.json.code]).to.deep.equal([409, 'SM_ERR_FILE_CHANGED'])
    expect(readFileSync(file, 'utf8')).to.equal(`${edited}max-players=5\n`)

    // No hash: only a new file.
    const blind = await api('/text', { method: 'PUT', body: { path: 'server.properties', text: 'x' } })
    expect([blind.status, blind.json.code]).to.deep.equal([409, 'SM_ERR_FILE_EXISTS'])
    const created = await api('/text', { method: 'PUT', body: { path: 'config/new.yml', text: 'a: 1\n' } })
    expect(created.status, created.text).to.equal(200)
    expect(created.json.created).to.equal(true)
    expect(readFileSync(join(dir, 'config', 'new.yml'), 'utf8')).to.equal('a: 1\n')
    // Through a link inside the directory: the link stays a link, its target is written.
    const viaLink = await api('/text?path=settings-link/settings.json')
    const linked = await api('/text', {
      method: 'PUT',
      body: { path: 'settings-link/settings.json', text: '{"a": 2}\n', expected_hash: viaLink.json.hash },
    })
    expect(linked.status, linked.text).to.equal(200)
    expect(readFileSync(join(dir, 'config', 'settings.json'), 'utf8')).to.equal('{"a": 2}\n')
    expect(lstatSync(join(dir, 'settings-link')).isSymbolicLink()).to.equal(true)
  })

  it('uploads a large file streamed to a file beside its place, then downloads it streamed, byte for byte', async () => {
    const source = join(tempDir(), 'world.zip')
    const bytes = randomBytes(7 * 1024 * 1024 + 123)
    writeFileSync(source, bytes)
    const uploaded = await upload(web, web.admin, 'worlds/world.zip', source)
    expect(uploaded.status, uploaded.text).to.equal(201)
    expect(uploaded.json).to.include({ path: 'worlds/world.zip', size: bytes.length, replaced: false })
    expect(sha(readFileSync(join(dir, 'worlds', 'world.zip')))).to.equal(sha(bytes))
    expect(leftovers(join(dir, 'worlds'))).to.deep.equal([])

    const res = await fetch(`${web.url}/api/servers/alpha/files/download?path=worlds%2Fworld.zip`, {
      headers: { Authorization: `Bearer ${web.admin}` },
    })
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.equal('application/octet-stream')
    expect(res.headers.get('content-disposition')).to.equal('attachment; filename="world.zip"')
    expect(Number(res.headers.get('content-length'))).to.equal(bytes.length)
    expect(sha(Buffer.from(await res.arrayBuffer()))).to.equal(sha(bytes))

    // Replacing needs overwrite, and keeps the old file's mode.
    chmodSync(join(dir, 'worlds', 'world.zip'), 0o600)
    writeFileSync(source, 'smaller')
    const again = await upload(web, web.admin, 'worlds/world.zip', source)
    expect([again.status, again.json.code]).to.deep.equal([409, 'SM_ERR_FILE_EXISTS'])
    expect(statSync(join(dir, 'worlds', 'world.zip')).size).to.equal(bytes.length)
    const replaced = await upload(web, web.admin, 'worlds/world.zip', source, true)
    expect(replaced.status, replaced.text).to.equal(201)
    expect(replaced.json.replaced).to.equal(true)
    expect(readFileSync(join(dir, 'worlds', 'world.zip'), 'utf8')).to.equal('smaller')
    expect(statSync(join(dir, 'worlds', 'world.zip')).mode & 0o777).to.equal(0o600)
    const nowhere = await upload(web, web.admin, 'no-such-folder/x.zip', source)
    expect([nowhere.status, nowhere.json.code]).to.deep.equal([404, 'SM_ERR_FILE_NOT_FOUND'])
    const noFile = await api('/upload', { body: { path: 'x.txt' } })
    expect([noFile.status, noFile.json.code]).to.deep.equal([422, 'SM_ERR_WEB_VALIDATION'])
  })

  it('renames and moves, makes folders and deletes files, folders and links (never a link target)', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'notes\n')
    const made = await api('/mkdir', { body: { path: 'archive' } })
    expect(made.status, made.text).to.equal(201)
    expect(statSync(join(dir, 'archive')).isDirectory()).to.equal(true)
    const twice = await api('/mkdir', { body: { path: 'archive' } })
    expect([twice.status, twice.json.code]).to.deep.equal([409, 'SM_ERR_FILE_EXISTS'])

    const moved = await api('/rename', { body: { path: 'notes.txt', to: 'archive/notes-old.txt' } })
    expect(moved.status, moved.text).to.equal(200)
    expect(moved.json).to.include({ path: 'notes.txt', to: 'archive/notes-old.txt' })
    expect(existsSync(join(dir, 'notes.txt'))).to.equal(false)
    expect(readFileSync(join(dir, 'archive', 'notes-old.txt'), 'utf8')).to.equal('notes\n')
    const taken = await api('/rename', { body: { path: 'allowlist.json', to: 'server.properties' } })
    expect([taken.status, taken.json.code]).to.deep.equal([409, 'SM_ERR_FILE_EXISTS'])
    const intoItself = await api('/rename', { body: { path: 'archive', to: 'archive/inner' } })
    expect([intoItself.status, intoItself.json.code]).to.deep.equal([422, 'SM_ERR_FILE_PATH_INVALID'])

    // A link is deleted as a link: the folder it points to stays, whole.
    symlinkSync('archive', join(dir, 'archive-link'))
    const unlinked = await api('?path=archive-link', { method: 'DELETE' })
    expect(unlinked.status, unlinked.text).to.equal(200)
    expect(unlinked.json.kind).to.equal('link')
    expect(existsSync(join(dir, 'archive-link'))).to.equal(false)
    expect(existsSync(join(dir, 'archive', 'notes-old.txt'))).to.equal(true)
    const folder = await api('?path=archive', { method: 'DELETE' })
    expect(folder.status, folder.text).to.equal(200)
    expect(folder.json.kind).to.equal('directory')
    expect(existsSync(join(dir, 'archive'))).to.equal(false)
    for (const root of ['', '.', './']) {
      const refused = await api('/rename', { body: { path: root || '.', to: 'elsewhere' } })
      expect([refused.status, refused.json.code], root).to.deep.equal([409, 'SM_ERR_FILE_ROOT_REFUSED'])
    }
    const rootDelete = await api('?path=.', { method: 'DELETE' })
    expect([rootDelete.status, rootDelete.json.code]).to.deep.equal([409, 'SM_ERR_FILE_ROOT_REFUSED'])
    expect(existsSync(join(dir, 'server.properties'))).to.equal(true)
    const gone = await api('?path=archive', { method: 'DELETE' })
    expect([gone.status, gone.json.code]).to.deep.equal([404, 'SM_ERR_FILE_NOT_FOUND'])
  })

  it('records every change as a fact with who made it, never the contents', async () => {
    const marker = `secret-${randomBytes(8).toString('hex')}`
    await api('/text', { method: 'PUT', body: { path: 'marker.txt', text: `${marker}\n` } })
    await api('/rename', { body: { path: 'marker.txt', to: 'marker2.txt' } })
    await api('?path=marker2.txt', { method: 'DELETE' })
    const facts = await web.manager.bus.request('events:read', {
      types: ['after_file_*', 'after_directory_create'],
      limit: 1000,
    })
    const types = facts.map((f) => f.type)
    for (const type of [
      'after_file_write',
      'after_file_upload',
      'after_file_rename',
      'after_file_delete',
      'after_directory_create',
    ])
      expect(types, type).to.include(type)
    expect(JSON.stringify(facts)).to.not.contain(marker)
    const write = facts.find(
      (f) => f.type === 'after_file_write' && (f.payload as { path: string }).path === 'marker.txt',
    )
    expect(write?.actor).to.equal('http:admin')
    expect(write?.payload).to.deep.include({ serverName: 'alpha', path: 'marker.txt', bytes: marker.length + 1 })
    const rename = facts.find(
      (f) => f.type === 'after_file_rename' && (f.payload as { path: string }).path === 'marker.txt',
    )
    expect(rename?.payload).to.deep.include({ to: 'marker2.txt' })
  })

  it('refuses moderators and users every file route and the page, touching nothing', async () => {
    const tokens = [await web.login('mod', 'moderator'), await web.login('usr', 'user')]
    const before = readFileSync(join(dir, 'server.properties'), 'utf8')
    for (const token of tokens) {
      const calls: Reply[] = [
        await api('', { token }),
        await api('/text?path=server.properties', { token }),
        await api('/download?path=server.properties', { token }),
        await api('/text', { token, method: 'PUT', body: { path: 'server.properties', text: 'x' } }),
        await api('/rename', { token, body: { path: 'server.properties', to: 'y' } }),
        await api('/mkdir', { token, body: { path: 'd' } }),
        await api('?path=server.properties', { token, method: 'DELETE' }),
        // Small and whole, so the refusal (answered before the body is read) does not cut its sending short.
        await api('/upload', {
          token,
          raw: `--b\r\nContent-Disposition: form-data; name="path"\r\n\r\nup.txt\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="x.txt"\r\n\r\nx\r\n--b--\r\n`,
          headers: { 'Content-Type': 'multipart/form-data; boundary=b' },
        }),
        await http(`${web.url}/servers/alpha/files`, { token }),
      ]
      for (const reply of calls) expect([reply.status, reply.json?.code]).to.deep.equal([403, 'SM_ERR_AUTH_FORBIDDEN'])
      const page = await http(`${web.url}/servers/alpha`, { token, headers: { Accept: 'text/html' } })
      expect(page.status).to.equal(200)
      expect(page.text).to.not.contain('/servers/alpha/files')
    }
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.equal(before)
    expect(existsSync(join(dir, 'y'))).to.equal(false)
    expect(existsSync(join(dir, 'd'))).to.equal(false)
    expect(existsSync(join(dir, 'up.txt'))).to.equal(false)
    const admin = await http(`${web.url}/servers/alpha`, { token: web.admin, headers: { Accept: 'text/html' } })
    expect(admin.text).to.contain('href="/servers/alpha/files"')
  })

  it("edits a running server's config and says a restart applies it, and only of a config file", async () => {
    afterItsUser(() => killServers(web.dataDir))
    await web.manager.bus.request('servers:start', { name: 'alpha' })
    const read = await api('/text?path=server.properties')
    const saved = await api('/text', {
      method: 'PUT',
      body: { path: 'server.properties', text: `${read.json.text}motd=hi\n`, expected_hash: read.json.hash },
    })
    expect(saved.status, saved.text).to.equal(200)
    expect(saved.json.running).to.equal(true)
    expect(saved.json.message).to.contain('restart it to apply')
    // A file that is none of its config files: nothing a restart would apply (issue 34, item 5).
    const note = await api('/text', { method: 'PUT', body: { path: 'notes.txt', text: 'hello\n' } })
    expect(note.json.running).to.equal(true)
    expect(note.json.message).to.not.contain('restart')
    await web.manager.bus.request('servers:stop', { name: 'alpha' })
  })

  it('says with a code that a save was written when a folder on its path is swapped for a link right after (issue 32)', async () => {
    mkdirSync(join(dir, 'swapped'))
    writeFileSync(join(dir, 'swapped', 'a.txt'), 'old\n')
    mkdirSync(join(dir, 'elsewhere'))
    const read = await api('/text?path=swapped/a.txt')
    // Right after the save is written (its after-fact), the folder is moved away and a link put in its place.
    const swap = web.manager.bus.on(
      'after_file_write',
      () => {
        renameSync(join(dir, 'swapped'), join(dir, 'swapped-away'))
        symlinkSync('elsewhere', join(dir, 'swapped'))
      },
      { owner: 'test' },
    )
    try {
      const saved = await api('/text', {
        method: 'PUT',
        body: { path: 'swapped/a.txt', text: 'new\n', expected_hash: read.json.hash },
      })
      expect(saved.status, saved.text).to.equal(200)
      expect(saved.json).to.include({ warning_code: 'SM_ERR_FILE_PATH_MOVED', hash: sha('new\n') })
      expect(saved.json.warning).to.contain('the path now leads elsewhere')
    } finally {
      swap.dispose()
    }
    expect(readFileSync(join(dir, 'swapped-away', 'a.txt'), 'utf8')).to.equal('new\n')
    expect(readdirSync(join(dir, 'elsewhere'))).to.deep.equal([])
  })
})

describe('services/files: plugins veto changes', function () {
  this.timeout(120_000)
  it('a before_file_write hook vetoes a save: 409 naming the plugin, the file unchanged, the fact cancelled', async () => {
    const veto = `beforeFileWrite({ path }: any) {
    if (path === 'server.properties') return { cancel: true, reason: 'config is frozen' } as const
    return undefined
  }`
    const web = await startWeb({ files: { 'freeze.ts': plugin('Freeze', veto) }, enable: ['freeze'] })
    try {
      const dir = fakeBedrockDir()
      await web.manager.bus.request('servers:add', { name: 'alpha', dir })
      const before = readFileSync(join(dir, 'server.properties'), 'utf8')
      const url = `${web.url}/api/servers/alpha/files/text`
      const read = await http(`${url}?path=server.properties`, { token: web.admin })
      const vetoed = await http(url, {
        token: web.admin,
        method: 'PUT',
        body: { path: 'server.properties', text: 'changed\n', expected_hash: read.json.hash },
      })
      expect([vetoed.status, vetoed.json.code]).to.deep.equal([409, 'SM_ERR_FILE_CHANGE_CANCELLED'])
      expect(vetoed.json.message).to.contain("'plugin:freeze'").and.to.contain('config is frozen')
      expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.equal(before)
      const other = await http(url, { token: web.admin, method: 'PUT', body: { path: 'other.txt', text: 'ok\n' } })
      expect(other.status, other.text).to.equal(200)
      const facts = await web.manager.bus.request('events:read', { types: ['after_file_write'] })
      expect(
        facts.map((f) => [
          (f.payload as { path: string }).path,
          (f.payload as { result: { status: string } }).result.status,
        ]),
      ).to.deep.equal([
        ['server.properties', 'cancelled'],
        ['other.txt', 'success'],
      ])
    } finally {
      await web.manager.stop()
    }
  })
})
