import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { setTimeout as pause } from 'node:timers/promises'
import { expect } from 'chai'
import { FAKE_JAVA, fakeJavaDir } from '../../helpers/game'
import { afterItsUser } from '../../helpers/run-end'
import { tempDir } from '../../helpers/temp-dir'

/** The vanilla log prefix: `[HH:MM:SS] [<thread>/<LEVEL>]: `. */
const PREFIX = String.raw`^\[\d\d:\d\d:\d\d\] \[[^\]/]+/(?:INFO|WARN|ERROR)\]: `
const logged = (message: string) => new RegExp(`${PREFIX}${message}$`)
const ESC = '\u001b'
const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The fake run as `java -jar server.jar nogui` would be, in `dir`, its console on pipes. */
class Console {
  readonly child: ChildProcessWithoutNullStreams
  readonly lines: string[] = []
  #read = 0
  #partial = ''
  #wake: (() => void) | undefined
  #closed = false
  /** Its exit code, once it has exited and its output is all read. */
  readonly ended: Promise<number | null>

  constructor(dir: string, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [FAKE_JAVA, 'nogui'], { cwd: dir, env: { ...process.env, ...env } })
    afterItsUser(() => {
      this.child.kill('SIGKILL')
    })
    this.child.stdout.setEncoding('utf8')
    this.child.stdout.on('data', (chunk: string) => {
      const parts = (this.#partial + chunk).split('\n')
      this.#partial = parts.pop() ?? ''
      this.lines.push(...parts)
      this.#wake?.()
    })
    this.ended = new Promise((resolve) =>
      this.child.once('close', (code) => {
        this.#closed = true
        this.#wake?.()
        resolve(code)
      }),
    )
  }

  /** The next line (from the last one matched on) that matches `pattern`. */
  async next(pattern: RegExp): Promise<string> {
    for (;;) {
      const at = this.lines.findIndex((line, i) => i >= this.#read && pattern.test(line))
      if (at >= 0) {
        this.#read = at + 1
        return this.lines[at] as string
      }
      if (this.#closed)
        throw new Error(`it exited (${this.child.exitCode}) before printing ${pattern}:\n${this.lines.join('\n')}`)
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
    }
  }

  send(command: string): void {
    this.child.stdin.write(`${command}\n`)
  }

  /** Sends `command` and answers its reply line (the next line matching `reply`). */
  ask(command: string, reply: RegExp): Promise<string> {
    this.send(command)
    return this.next(reply)
  }

  async ready(): Promise<void> {
    await this.next(logged(quoted('Done (') + String.raw`\d+\.\d{3}s` + quoted(')! For help, type "help"')))
  }

  /** Waits until the world writer has had `n` more beats (chances to write) than now. */
  async beats(n: number): Promise<void> {
    const count = async () => Number(/Beats: (\d+)$/.exec(await this.ask('beats', /Beats: \d+$/))?.[1])
    const from = await count()
    while ((await count()) < from + n) await pause(10)
  }
}

/** Every file under `dir` and its bytes. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else files[relative(dir, full)] = readFileSync(full).toString('base64')
    }
  }
  walk(dir)
  return files
}

describe('test/fixtures/fake-java.js: a vanilla Java Edition console, as the tests need it', () => {
  it('refuses to run until the EULA is accepted: the vanilla lines, a default eula.txt and server.properties, exit 0', async () => {
    const dir = tempDir('sm-fakejava-')
    const game = new Console(dir)
    await game.next(logged('Failed to load properties from file: server.properties'))
    await game.next(logged('Failed to load eula.txt'))
    await game.next(
      logged(quoted('You need to agree to the EULA in order to run the server. Go to eula.txt for more info.')),
    )
    expect(await game.ended).to.equal(0)
    expect(readFileSync(join(dir, 'eula.txt'), 'utf8')).to.match(
      /^#By changing the setting below to TRUE you are indicating your agreement to our EULA \(https:\/\/aka\.ms\/MinecraftEULA\)\.\n#\w{3} \w{3} \d\d \d\d:\d\d:\d\d UTC \d{4}\neula=false\n$/,
    )
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.match(
      /^#Minecraft server properties\n[\s\S]*^level-name=world$/m,
    )
    expect(existsSync(join(dir, 'world'))).to.equal(false)

    // Declined (eula=false): only the reason, and the admin's file is left as it is.
    writeFileSync(join(dir, 'eula.txt'), 'eula=false\n')
    const again = new Console(dir)
    expect(await again.ended).to.equal(0)
    expect(again.lines).to.have.length(1)
    expect(again.lines[0]).to.match(/\[ServerMain\/INFO\]: You need to agree to the EULA/)
    expect(readFileSync(join(dir, 'eula.txt'), 'utf8')).to.equal('eula=false\n')
  })

  it('prints its ready line only once FAKE_READY_GATE exists, and runs commands typed before it after it', async () => {
    const { dir } = fakeJavaDir({ eula: true, level: 'Survival' })
    const gate = join(dir, 'ready.gate')
    const game = new Console(dir, { FAKE_READY_GATE: gate })
    await game.next(logged('Starting minecraft server version 1.21.1'))
    await game.next(logged(quoted('Preparing level "Survival"')))
    await game.next(logged('Preparing start region for dimension minecraft:overworld'))
    await game.next(logged(String.raw`Time elapsed: \d+ ms`))
    game.send('list')
    // Its world is being written (it runs on), and still no ready line.
    const region = join(dir, 'Survival', 'region', 'r.0.0.mca')
    const size = statSync(region).size
    while (statSync(region).size === size) await pause(10)
    expect(game.lines.filter((line) => /Done|There are/.test(line))).to.deep.equal([])
    writeFileSync(gate, '')
    await game.ready()
    expect(await game.next(/There are/)).to.match(logged('There are 0 of a max of 20 players online: '))
    for (const file of ['level.dat', 'session.lock'])
      expect(existsSync(join(dir, 'Survival', file)), file).to.equal(true)
    expect(statSync(join(dir, 'Survival', 'playerdata')).isDirectory()).to.equal(true)
    game.send('stop')
    expect(await game.ended).to.equal(0)
  })

  it('lists its players and prints the vanilla join and leave lines', async () => {
    const { dir } = fakeJavaDir({ eula: true })
    const game = new Console(dir, { FAKE_PLAYERS: 'Alex' })
    await game.ready()
    expect(await game.ask('list', /There are/)).to.match(logged('There are 1 of a max of 20 players online: Alex'))
    const uuid = '069a79f4-44e9-4726-a5be-fca90e38aaf5'
    game.send(`fakejoin Notch ${uuid}`)
    expect(await game.next(/UUID of player/)).to.match(
      /^\[\d\d:\d\d:\d\d\] \[User Authenticator #1\/INFO\]: UUID of player Notch is 069a79f4-44e9-4726-a5be-fca90e38aaf5$/,
    )
    expect(await game.next(/logged in/)).to.match(
      logged(
        quoted('Notch[/127.0.0.1:54321] logged in with entity id ') + String.raw`\d+` + quoted(' at (0.5, 64.0, 0.5)'),
      ),
    )
    expect(await game.next(/joined/)).to.match(logged('Notch joined the game'))
    expect(await game.ask('list', /There are/)).to.match(
      logged('There are 2 of a max of 20 players online: Alex, Notch'),
    )
    expect(await game.ask('say Back in 5 minutes', /\[Server\]/)).to.match(logged(quoted('[Server] Back in 5 minutes')))
    game.send('fakeleave Notch')
    expect(await game.next(/lost connection/)).to.match(logged('Notch lost connection: Disconnected'))
    expect(await game.next(/left the game/)).to.match(logged('Notch left the game'))
    expect(await game.ask('list', /There are/)).to.match(logged('There are 1 of a max of 20 players online: Alex'))
    game.send('whitelist on please')
    await game.next(logged('Unknown or incomplete command, see below for error'))
    expect(await game.next(/HERE/)).to.match(logged(quoted('whitelist on please<--[HERE]')))
    game.send('crash')
    expect(await game.ended).to.equal(3)
  })

  it('keeps its whitelist and operators as vanilla does: only names it has seen, in its own files, with its replies', async () => {
    const { dir } = fakeJavaDir({ eula: true })
    const game = new Console(dir)
    await game.ready()
    const uuid = '069a79f4-44e9-4726-a5be-fca90e38aaf5'
    expect(await game.ask('whitelist add Notch', /player/)).to.match(logged('That player does not exist'))
    game.send(`fakejoin Notch ${uuid}`)
    await game.next(/joined the game/)
    expect(JSON.parse(readFileSync(join(dir, 'usercache.json'), 'utf8'))).to.deep.include({
      name: 'Notch',
      uuid,
      expiresOn: '2099-01-01 00:00:00 +0000',
    })
    expect(await game.ask('whitelist add notch', /whitelist/)).to.match(logged('Added Notch to the whitelist'))
    expect(await game.ask('whitelist add Notch', /whitelisted/)).to.match(logged('Player is already whitelisted'))
    expect(JSON.parse(readFileSync(join(dir, 'whitelist.json'), 'utf8'))).to.deep.equal([{ uuid, name: 'Notch' }])
    expect(await game.ask('whitelist list', /whitelisted/)).to.match(
      logged(quoted('There are 1 whitelisted player(s): Notch')),
    )
    expect(await game.ask('whitelist reload', /Reloaded/)).to.match(logged('Reloaded the whitelist'))
    expect(await game.ask('whitelist remove Notch', /whitelist/)).to.match(logged('Removed Notch from the whitelist'))
    expect(await game.ask('whitelist remove Notch', /whitelisted/)).to.match(logged('Player is not whitelisted'))
    expect(await game.ask('op Notch', /operator/)).to.match(logged('Made Notch a server operator'))
    expect(await game.ask('op Notch', /operator/)).to.match(
      logged(quoted('Nothing changed. The player already is an operator')),
    )
    expect(JSON.parse(readFileSync(join(dir, 'ops.json'), 'utf8'))).to.deep.equal([
      { uuid, name: 'Notch', level: 4, bypassesPlayerLimit: false },
    ])
    expect(await game.ask('deop Notch', /operator/)).to.match(logged('Made Notch no longer a server operator'))
    expect(await game.ask('deop Notch', /operator/)).to.match(
      logged(quoted('Nothing changed. The player is not an operator')),
    )
    expect(await game.ask('op Herobrine', /player/)).to.match(logged('That player does not exist'))
    game.send('crash')
    expect(await game.ended).to.equal(3)
  })

  it('writes its world while saving is on, not at all after save-off, and exactly the flushed state on save-all flush', async () => {
    const { dir } = fakeJavaDir({ eula: true })
    const world = join(dir, 'world')
    const game = new Console(dir)
    await game.ready()
    expect(await game.ask('save-off', /saving/i)).to.match(logged('Automatic saving is now disabled'))
    expect(await game.ask('save-off', /saving/i)).to.match(logged('Saving is already turned off'))
    game.send('save-all flush')
    await game.next(logged(quoted('Saving the game (this may take a moment!)')))
    await game.next(logged('Saved the game'))
    const flushed = snapshot(world)
    expect(JSON.parse(readFileSync(join(world, 'level.dat'), 'utf8'))).to.include({ level: 'world', flushed: 1 })
    // The writer had two chances to write: nothing changed.
    await game.beats(2)
    expect(await game.ask('holdstate', /Saving: /)).to.match(logged('Saving: off'))
    expect(snapshot(world)).to.deep.equal(flushed)

    expect(await game.ask('save-on', /saving/i)).to.match(logged('Automatic saving is now enabled'))
    expect(await game.ask('save-on', /saving/i)).to.match(logged('Saving is already turned on'))
    await game.beats(2)
    expect(await game.ask('holdstate', /Saving: /)).to.match(logged('Saving: on'))
    expect(snapshot(world)).not.to.deep.equal(flushed)

    game.send('stop')
    for (const line of [
      'Stopping the server',
      'Stopping server',
      'Saving players',
      'Saving worlds',
      quoted("Saving chunks for level 'ServerLevel[world]'/minecraft:overworld"),
      'ThreadedAnvilChunkStorage: All dimensions are saved',
    ])
      await game.next(logged(line))
    expect(await game.ended).to.equal(0)
    expect(JSON.parse(readFileSync(join(world, 'level.dat'), 'utf8'))).to.include({ flushed: 2 })
  })

  it('FAKE_ANSI=1 prints as a JLine console does: a prompt, each line drawn over it, warnings coloured', async () => {
    const raw = async (dir: string, env: Record<string, string>) => {
      const game = new Console(dir, { FAKE_ANSI: '1', ...env })
      expect(await game.ended).to.equal(0)
      return game.lines.map((line) => line.replace(/\[\d\d:\d\d:\d\d\]/, '[time]'))
    }
    const refused = await raw(tempDir('sm-fakejava-'), {})
    expect(refused[0]?.startsWith(`> \r${ESC}[K`)).to.equal(true)
    const warning = refused.findIndex((line) => line.includes('Failed to load eula.txt'))
    // Drawn over the prompt that the line before (an error, in red) left after its colour reset.
    expect(refused[warning]).to.equal(
      `${ESC}[m> \r${ESC}[K${ESC}[33;1m[time] [ServerMain/WARN]: Failed to load eula.txt`,
    )
    expect(refused[warning + 1]?.startsWith(`${ESC}[m> \r${ESC}[K[time] [ServerMain/INFO]: You need`)).to.equal(true)

    const { dir } = fakeJavaDir({ eula: true })
    const output = await raw(dir, { FAKE_EXIT_AT_START: '0' })
    expect(output.at(-1)).to.match(/^> \r.\[K\[time\] \[Server thread\/INFO\]: Done \(\d+\.\d{3}s\)! For help/)
    // What is left once the prompt and the escapes are taken out: the plain vanilla lines.
    const escapes = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g')
    const plain = output.map((line) => line.replace(escapes, '').replace(/^.*\r/, ''))
    expect(plain.length).to.be.greaterThan(5)
    for (const line of plain) expect(line).to.match(/^\[time\] \[[^\]/]+\/INFO\]: /)
  })
})
