import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { writePlugins } from '../../helpers/plugins'
import { cli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

// Most commands run in this process (cliIn: the same output and exit code as a process). A plugin
// command's code runs in the CLI's own process, so these stay cold processes: what a plugin's import
// does there (two of the four listings import nothing, the first run imports once, a changed file
// is imported again to rebuild its entry, an import that throws, which this process's module cache
// would hide), a command that waits or spins past its timeout (the process is ended), and colour
// and completion read from a process's own environment and terminal.
const NO_DEFAULTS = { SM_DEFAULT_PLUGINS: 'off' }

/** A user plugin contributing one command `<id>` that prints `<output>` (and notes each import in `marker`). */
function commandPlugin(className: string, id: string, output: string, marker?: string): string {
  return `import { appendFileSync } from 'node:fs'
import { PluginBase } from 'server-manager'
import { Command, Flags } from 'server-manager/cli'
${marker ? `appendFileSync(${JSON.stringify(marker)}, 'imported\\n')` : ''}
class Cmd extends Command {
  static id = '${id}'
  static summary = 'Summary of ${id}'
  static examples = ['<%= config.bin %> ${id.replaceAll(':', ' ')}']
  static flags = { loud: Flags.boolean({ description: 'shout it' }) }
  async run() {
    const { flags } = await this.parse(Cmd)
    this.log(flags.loud ? '${output}'.toUpperCase() : '${output}')
  }
}
export default class ${className} extends PluginBase {
  static version = '1.0.0'
  getCliCommands() { return [Cmd] }
}
`
}

describe('services/cli: commands and topics from plugins', function () {
  this.timeout(120_000)

  it('lists the greet example in --help and runs greet hello; after plugin disable both are gone', async () => {
    const dir = tempDir()
    await managerOn(dir)
    await cliIn(dir, ['setting', 'set', 'plugins.dev_examples', 'true'], NO_DEFAULTS)
    expect((await cliIn(dir, ['plugin', 'enable', 'greet'], NO_DEFAULTS)).code).to.equal(0)

    const help = await cliIn(dir, ['--help'], NO_DEFAULTS)
    expect(help.code).to.equal(0)
    expect(help.stdout).to.match(/^\s+greet\s+Greetings from the greet example plugin$/m)
    const topic = await cliIn(dir, ['greet', '--help'], NO_DEFAULTS)
    expect(topic.stdout).to.include('greet hello').and.include('greet servers')
    const usage = await cliIn(dir, ['greet', 'hello', '--help'], NO_DEFAULTS)
    expect(usage.stdout).to.include('-n, --name=<value>').and.include('$ server-manager greet hello --name Steve')

    const hello = await cliIn(dir, ['greet', 'hello', '--name', 'x'], NO_DEFAULTS)
    expect(hello).to.include({ code: 0, stdout: 'Hello, x!\n' })
    const missing = await cliIn(dir, ['greet', 'hello'], NO_DEFAULTS)
    expect(missing.code).to.equal(64)
    expect(missing.stderr).to.match(/^Error \[SM_ERR_CLI_INVALID_ARGUMENT\]: .*Missing required flag name/)

    expect((await cliIn(dir, ['plugin', 'disable', 'greet'], NO_DEFAULTS)).code).to.equal(0)
    expect((await cliIn(dir, ['--help'], NO_DEFAULTS)).stdout).not.to.include('greet')
    const gone = await cliIn(dir, ['greet', 'hello', '--name', 'x'], NO_DEFAULTS)
    expect(gone.code).to.equal(64)
    expect(gone.stderr).to.include('SM_ERR_CLI_UNKNOWN_COMMAND')
  })

  it('runs a plugin command as a client of the running manager: this.api acts as the plugin there', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'listener.ts': `import { PluginBase } from 'server-manager'
export default class Listener extends PluginBase {
  static version = '1.0.0'
  override async onLoad() {
    await this.api.listenForEvent('greet:said_hello', (payload, meta) => {
      this.logger.warn('heard ' + JSON.stringify(payload) + ' from ' + meta.sender + ' in PID ' + process.pid)
    })
  }
}
`,
    })
    const manager = await spawnManager(dir, [], NO_DEFAULTS)
    try {
      const pid = Number((await waitForLine(manager, /PID \d+$/)).match(/PID (\d+)$/)?.[1])
      await waitForLine(manager, /^ready in/)
      // Enabled in the running manager: its plugin manager loads them there.
      await cliInOk(dir, ['setting', 'set', 'plugins.dev_examples', 'true'], NO_DEFAULTS)
      await cliInOk(dir, ['plugin', 'enable', 'greet'], NO_DEFAULTS)
      await cliInOk(dir, ['plugin', 'enable', 'listener'], NO_DEFAULTS)
      const heard = waitForLine(manager, /heard/, { stream: 'stderr' })
      const hello = await cliIn(dir, ['greet', 'hello', '--name', 'Steve', '--event'], NO_DEFAULTS)
      expect(hello.stderr).to.equal('')
      expect(hello.stdout).to.equal('Hello, Steve!\ngreet:said_hello reached 1 of 1 listeners.\n')
      expect(await heard).to.include(`heard {"name":"Steve"} from greet in PID ${pid}`)
      const servers = await cliIn(dir, ['greet', 'servers', '--json'], NO_DEFAULTS)
      expect(JSON.parse(servers.stdout)).to.deep.equal([])
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('lists commands without importing any plugin, and rebuilds the entry of a changed plugin', async () => {
    const dir = tempDir()
    const marker = join(dir, 'imports.txt')
    writePlugins(dir, { 'shout.ts': commandPlugin('Shout', 'shout:it', 'hey', marker) })
    expect((await cli(dir, ['plugin', 'enable', 'shout'], NO_DEFAULTS)).code).to.equal(0)
    rmSync(marker, { force: true })

    // Two listings as processes, two in this process: no import of the plugin here yet, so one
    // would write the marker here too.
    const listings: [string[], typeof cli][] = [
      [['--help'], cli],
      [['shout', '--help'], cliIn],
      [['shout', 'it', '--help'], cliIn],
      [['help', 'shout', 'it'], cli],
    ]
    for (const [args, runner] of listings) {
      const listed = await runner(dir, args, NO_DEFAULTS)
      expect(listed.code, args.join(' ')).to.equal(0)
      expect(listed.stdout).to.include('Summary of shout:it')
    }
    expect(existsSync(marker), 'no plugin code ran for help').to.equal(false)

    const run = await cli(dir, ['shout', 'it', '--loud'], NO_DEFAULTS)
    expect(run).to.include({ code: 0, stdout: 'HEY\n' })
    expect(readFileSync(marker, 'utf8')).to.equal('imported\n')

    // The file changes: the cached description is stale, so it is rebuilt, never shown.
    writePlugins(dir, { 'shout.ts': commandPlugin('Shout', 'shout:it', 'hey', marker).replace('Summary of', 'Now') })
    expect((await cli(dir, ['shout', '--help'], NO_DEFAULTS)).stdout).to.include('Now shout:it')
  })

  it('breaks only the command of a plugin that throws on import: help still works and says why', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'good.ts': commandPlugin('Good', 'good:one', 'fine'),
      'bad.ts': commandPlugin('Bad', 'bad:one', 'never'),
    })
    await cliInOk(dir, ['plugin', 'enable', 'good'], NO_DEFAULTS)
    await cliInOk(dir, ['plugin', 'enable', 'bad'], NO_DEFAULTS)
    expect((await cliIn(dir, ['bad', 'one'], NO_DEFAULTS)).stdout).to.equal('never\n')

    const file = join(dir, 'plugins', 'bad.ts')
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nthrow new Error('broken on purpose')\n`)
    const help = await cli(dir, ['--help'], NO_DEFAULTS)
    expect(help.code).to.equal(0)
    expect(help.stdout).to.include('good').and.not.include('bad ')
    expect(help.stderr).to.include("Warning: the plugin 'bad' adds no commands now").and.include('broken on purpose')

    const broken = await cli(dir, ['bad', 'one'], NO_DEFAULTS)
    expect(broken.code).to.equal(70)
    expect(broken.stderr).to.match(
      /^Error \[SM_ERR_CLI_PLUGIN_COMMAND_FAILED\]: The command 'bad one' of the plugin 'bad' could not be loaded: .*broken on purpose \(at .*bad\.ts:\d+:\d+\)/,
    )
    expect(await cliIn(dir, ['good', 'one'], NO_DEFAULTS)).to.include({ code: 0, stdout: 'fine\n', stderr: '' })
  })

  it("bounds a plugin's command by its timeout: one that waits or loops past it fails with a code, never hangs", async () => {
    const dir = tempDir()
    const command = (
      id: string,
      statics: string,
      body: string,
    ) => `class ${id[0]?.toUpperCase()}${id.slice(1)} extends Command {
  static id = 'slow:${id}'
  static summary = '${id}'
  static examples = ['<%= config.bin %> slow ${id}']
  ${statics}
  async run() { ${body} }
}`
    writePlugins(dir, {
      'slow.ts': `import { PluginBase } from 'server-manager'
import { Command } from 'server-manager/cli'
${command('waits', 'static timeout = 1', 'setInterval(() => {}, 1000); await new Promise(() => {})')}
${command('spins', 'static timeout = 1', 'while (true) {}')}
${command('quick', 'static timeout = 0', "this.log('done')")}
${command('odd', "static timeout = 'soon' as any", "this.log('never')")}
${command('patient', 'static timeout = 3_000_000', "await new Promise((r) => setTimeout(r, 50)); this.log('in time')")}
export default class Slow extends PluginBase {
  static version = '1.0.0'
  getCliCommands() { return [Waits, Spins, Quick, Odd, Patient] }
}
`,
    })
    expect((await cliIn(dir, ['plugin', 'enable', 'slow'], NO_DEFAULTS)).code).to.equal(0)
    // Awaiting what never comes (with a timer keeping the process alive): the run is ended, exit 75.
    const waits = await cli(dir, ['slow', 'waits'], NO_DEFAULTS)
    expect(waits.code).to.equal(75)
    expect(waits.stderr).to.include(
      "Error [SM_ERR_CLI_PLUGIN_COMMAND_TIMEOUT]: 'slow waits' (plugin 'slow') did not finish within 1 s",
    )
    // A synchronous loop holds the event loop: the watcher thread says why and ends the process.
    const spins = await cli(dir, ['slow', 'spins'], NO_DEFAULTS)
    expect(spins.code).not.to.equal(0)
    expect(spins.signal).to.equal('SIGKILL')
    expect(spins.stderr).to.include("Error [SM_ERR_CLI_PLUGIN_COMMAND_TIMEOUT]: 'slow spins' (plugin 'slow')")
    // The commands that end on their own run in this process: no limit, none a timer can hold, a bad one.
    expect(await cliIn(dir, ['slow', 'quick'], NO_DEFAULTS)).to.include({ code: 0, stdout: 'done\n' })
    // A timeout longer than a timer can hold (about 24.8 days) is no limit, not Node's 1 ms.
    expect(await cliIn(dir, ['slow', 'patient'], NO_DEFAULTS)).to.include({ code: 0, stdout: 'in time\n' })
    const odd = await cliIn(dir, ['slow', 'odd'], NO_DEFAULTS)
    expect(odd.code).to.equal(70)
    expect(odd.stderr).to.include('SM_ERR_CLI_PLUGIN_COMMAND_FAILED').and.include('its static timeout must be a number')
  })

  it('refuses a command that shadows a built-in or another plugin, naming both; the first keeps working', async () => {
    const dir = tempDir()
    await managerOn(dir)
    writePlugins(dir, {
      'first.ts': commandPlugin('First', 'tools:run', 'first'),
      'second.ts': commandPlugin('Second', 'tools:run', 'second'),
      'shadow.ts': commandPlugin('Shadow', 'server:list', 'mine'),
    })
    expect((await cliIn(dir, ['plugin', 'enable', 'first'], NO_DEFAULTS)).stdout).to.include('State: loaded')
    const second = await cliIn(dir, ['plugin', 'enable', 'second'], NO_DEFAULTS)
    expect(second.stdout).to.include('State: failed')
    const info = JSON.parse((await cliIn(dir, ['plugin', 'info', 'second', '--json'], NO_DEFAULTS)).stdout)
    expect(info.error.code).to.equal('SM_ERR_CLI_COMMAND_CONFLICT')
    expect(info.error.message).to.equal(
      "The plugin 'second' cannot have the command 'tools run': the plugin 'first' has it. Rename it in 'second' (the first one keeps working).",
    )
    await cliIn(dir, ['plugin', 'enable', 'shadow'], NO_DEFAULTS)
    const shadow = JSON.parse((await cliIn(dir, ['plugin', 'info', 'shadow', '--json'], NO_DEFAULTS)).stdout)
    expect(shadow.error.message).to.include("cannot have the command 'server list': server-manager has it built in")

    expect(await cliIn(dir, ['tools', 'run'], NO_DEFAULTS)).to.include({ code: 0, stdout: 'first\n' })
    expect((await cliIn(dir, ['server', 'list', '--json'], NO_DEFAULTS)).stdout.trim()).to.equal('[]')
  })

  it('gives every command examples in its --help, and --json to every command that reads', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'oclif.manifest.json'), 'utf8'))
    const commands = Object.entries(manifest.commands) as [string, { examples?: string[]; flags: object }][]
    expect(commands.filter(([, c]) => !c.examples?.length).map(([id]) => id)).to.deep.equal([])
    const reads = commands.filter(([id]) => /(^|:)(list|info|status|get|backups|logs|check|tasks|events)$/.test(id))
    expect(reads.length).to.be.greaterThan(12)
    expect(reads.filter(([, c]) => !('json' in c.flags)).map(([id]) => id)).to.deep.equal([])
  })

  it('prints plain help on a pipe or with NO_COLOR, and offers shell completion with plugin commands', async () => {
    const dir = tempDir()
    const home = tempDir()
    await cliInOk(dir, ['setting', 'set', 'plugins.dev_examples', 'true'], NO_DEFAULTS)
    await cliInOk(dir, ['plugin', 'enable', 'greet'], NO_DEFAULTS)
    const coloured = await cli(dir, ['--help'], { ...NO_DEFAULTS, FORCE_COLOR: '1' })
    expect(coloured.stdout).to.include('\u001b[')
    for (const env of [{}, { NO_COLOR: '1' }]) {
      const plain = await cli(dir, ['greet', 'hello', '--help'], { ...NO_DEFAULTS, ...env })
      expect(plain.stdout).not.to.include('\u001b[')
    }
    const env = { ...NO_DEFAULTS, HOME: home, XDG_CACHE_HOME: join(home, 'cache') }
    const setup = await cli(dir, ['autocomplete', 'bash'], env)
    expect(setup.code).to.equal(0)
    expect(setup.stdout).to.include('server-manager autocomplete script bash')
    const completion = readFileSync(
      join(home, 'cache', 'server-manager', 'autocomplete', 'functions', 'bash', 'server-manager.bash'),
      'utf8',
    )
    expect(completion).to.include('greet:hello').and.include('server:start')
  })
})
