import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'
import { writePlugins } from '../../helpers/plugins'
import { CLI, cli } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

const NO_DEFAULTS = { SM_DEFAULT_PLUGINS: 'off' }

/** A real terminal: `server-manager` alone, in a tmux session of its own, driven with send-keys. */
class Terminal {
  // Its own server on a socket in a temp dir of the run: `-L <name>` would leave the socket file in
  // /tmp/tmux-<uid>/ after kill-server, one per test run.
  readonly #socket = join(tempDir('sm-tmux-'), 'tmux.sock')

  constructor(dataDir: string) {
    const command = `env SM_DATA_DIR=${dataDir} SM_DEFAULT_PLUGINS=off ${process.execPath} ${CLI}; echo "EXITED $?"; sleep 600`
    this.#tmux('new-session', '-d', '-s', 'menu', '-x', '120', '-y', '50', command)
  }

  screen(): string {
    return this.#tmux('capture-pane', '-p', '-t', 'menu', '-S', '-200')
  }

  keys(...keys: string[]): void {
    this.#tmux('send-keys', '-t', 'menu', ...keys)
  }

  /** Types literal text (no key names). */
  type(text: string): void {
    this.#tmux('send-keys', '-t', 'menu', '-l', text)
  }

  /** Waits until the screen matches (polling what the terminal shows; mocha's timeout ends a hang). */
  async waitFor(pattern: RegExp): Promise<string> {
    for (;;) {
      const screen = this.screen()
      if (pattern.test(screen)) return screen
      await sleep(50)
    }
  }

  /** Leaves a submenu and then the menu with `key` (Esc or Ctrl+C): the command exits 0. */
  async leave(key: 'Escape' | 'C-c'): Promise<void> {
    this.keys(key)
    await this.waitFor(/\? server-manager: what would you like to do\?[^✖]*$/)
    this.keys(key)
    await this.waitFor(/EXITED 0/)
  }

  close(): void {
    try {
      this.#tmux('kill-server')
    } catch {
      // already gone
    }
  }

  #tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.#socket, ...args], { encoding: 'utf8' })
  }
}

describe('services/cli: the interactive menu in a real terminal', function () {
  this.timeout(120_000)

  it('reaches a plugin item, runs it, returns after a cancelled prompt or a throwing handler, and leaves with Esc', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'listener.ts': `import { PluginBase } from 'server-manager'
export default class Listener extends PluginBase {
  static version = '1.0.0'
  override async onLoad() { await this.api.listenForEvent('menu:wave', () => {}) }
}
`,
      'oops.ts': `import { PluginBase } from 'server-manager'
export default class Oops extends PluginBase {
  static version = '1.0.0'
  getCliMenuItems() { return [{ name: 'Break', handler: () => { throw new Error('the handler broke') } }] }
}
`,
    })
    await cli(dir, ['setting', 'set', 'plugins.dev_examples', 'true'], NO_DEFAULTS)
    for (const name of ['greet', 'listener', 'oops']) await cli(dir, ['plugin', 'enable', name], NO_DEFAULTS)

    const terminal = new Terminal(dir)
    // "Send Custom Event" up to its payload prompt, the event name typed.
    const toPayload = async () => {
      terminal.keys('Enter')
      await terminal.waitFor(/\? Event name/)
      terminal.type('menu:wave')
      terminal.keys('Enter')
      await terminal.waitFor(/\? Payload \(a JSON object\)/)
    }
    try {
      await terminal.waitFor(/what would you like to do\?[\s\S]*Plugin Custom Menus/)
      terminal.keys('Down', 'Down', 'Down', 'Down', 'Down', 'Enter')
      await terminal.waitFor(/Send Custom Event \(plugin: greet\)[\s\S]*Break \(plugin: oops\)/)

      // Cancel the second prompt: the handler gets undefined, says so, and the menu comes back.
      await toPayload()
      terminal.keys('Escape')
      const cancelled = await terminal.waitFor(/Cancelled\.\n[\s\S]*\? Plugin Custom Menus/)
      expect(cancelled).not.to.match(/at .*\.js:\d+/)

      // The whole way: name, payload, confirm; the event reaches the listener in the manager.
      await toPayload()
      terminal.keys('C-u')
      terminal.type('{"player":"Steve"}')
      terminal.keys('Enter')
      await terminal.waitFor(/Send menu:wave with \{"player":"Steve"\}\?/)
      terminal.keys('Enter')
      await terminal.waitFor(/Sent menu:wave: delivered to 1 of 1 listeners\./)

      // A handler that throws: its error, then the menu again.
      await terminal.waitFor(/Sent menu:wave[\s\S]*\? Plugin Custom Menus/)
      terminal.keys('Down', 'Enter')
      const broke = await terminal.waitFor(
        /Error \[SM_ERR_CLI_PLUGIN_COMMAND_ERROR\]: 'Break' \(plugin 'oops'\) failed: the handler broke\.[\s\S]*\? Plugin Custom Menus/,
      )
      expect(broke).not.to.match(/at .*\.js:\d+/)

      await terminal.leave('Escape')
    } finally {
      terminal.close()
    }
  })

  it("ends the menu with a code when a plugin's item holds the event loop (a synchronous loop), never hangs", async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'spinner.ts': `import { PluginBase } from 'server-manager'
export default class Spinner extends PluginBase {
  static version = '1.0.0'
  getCliMenuItems() { return [{ name: 'Spin', handler: () => { while (true) {} } }] }
}
`,
    })
    await cli(dir, ['plugin', 'enable', 'spinner'], NO_DEFAULTS)
    // Held past the watchdog's limit: the 1 s plugins.hook_timeout_ms and 2 s more (its least).
    await cli(dir, ['setting', 'set', 'plugins.hook_timeout_ms', '1000'], NO_DEFAULTS)
    const terminal = new Terminal(dir)
    try {
      await terminal.waitFor(/what would you like to do\?[\s\S]*Plugin Custom Menus/)
      terminal.keys('Down', 'Down', 'Down', 'Down', 'Down', 'Enter')
      await terminal.waitFor(/Spin \(plugin: spinner\)/)
      terminal.keys('Enter')
      // Ctrl-C cannot reach a thread that spins; the watcher thread ends the process (SIGKILL: 137).
      const ended = await terminal.waitFor(/EXITED 137/)
      expect(ended).to.match(
        /Error \[SM_ERR_CLI_PLUGIN_BLOCKED\]: The menu item 'Spin' \(plugin 'spinner'\) held the event loop for 3 s/,
      )
    } finally {
      terminal.close()
    }
  })

  it('runs built-in operations from the menu (plugins: list, enable)', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'quiet.ts':
        "import { PluginBase } from 'server-manager'\nexport default class Quiet extends PluginBase { static version = '1.0.0' }\n",
    })
    await cli(dir, ['plugin', 'list'], NO_DEFAULTS)
    const terminal = new Terminal(dir)
    try {
      await terminal.waitFor(/what would you like to do\?/)
      expect(terminal.screen()).not.to.include('Plugin Custom Menus')
      terminal.keys('Down', 'Down', 'Enter')
      await terminal.waitFor(/\? Plugins/)
      terminal.keys('Down', 'Enter')
      await terminal.waitFor(/quiet \(disabled, disabled\)/)
      terminal.keys('Enter')
      await terminal.waitFor(/Plugin 'quiet' enabled\. State: loaded\.[\s\S]*\? Plugins/)
      await terminal.leave('C-c')
    } finally {
      terminal.close()
    }
    const list = JSON.parse((await cli(dir, ['plugin', 'list', '--json'], NO_DEFAULTS)).stdout)
    expect(list.find((p: { name: string }) => p.name === 'quiet').enabled).to.equal(true)
  })

  it('says a running server is stopped for a restore before it does so, and draws the restore progress without leftovers (issue 20)', async () => {
    const dir = gameDataDir()
    await cli(dir, ['server', 'add', 's1', '--dir', fakeBedrockDir()], NO_DEFAULTS)
    await cli(dir, ['server', 'start', 's1'], NO_DEFAULTS)
    const backup = JSON.parse((await cli(dir, ['server', 'backup', 's1', '--json'], NO_DEFAULTS)).stdout).files[0].file
    const terminal = new Terminal(dir)
    try {
      await terminal.waitFor(/what would you like to do\?/)
      terminal.keys('Down', 'Enter')
      await terminal.waitFor(/\? Backups/)
      terminal.keys('Down', 'Down', 'Down', 'Enter')
      await terminal.waitFor(/\? Which server\?/)
      terminal.keys('Enter')
      await terminal.waitFor(/\? Restore which backup into s1\?/)
      terminal.keys('Enter')
      const asked = await terminal.waitFor(/s1 is running: stop it, replace its world with[\s\S]*\(y\/N\)/)
      // The question, unwrapped from the terminal's 120 columns.
      expect(asked.replace(/\n/g, '')).to.include(
        `s1 is running: stop it, replace its world with ${backup} (what is there now is kept in a safety backup), and start it again? (y/N)`,
      )
      terminal.type('y')
      const done = await terminal.waitFor(/Restored \S+ into 's1'[\s\S]*\? Backups/)
      // The progress line holds the last step alone: the longer lines before it were cleared.
      const progress = done.split('\n').filter((line) => /: \d+% \(/.test(line))
      expect(progress, done).to.have.length.greaterThan(0)
      for (const line of progress) expect(line.trimEnd(), done).to.match(/^\w+ \S+: \d+% \([^()]+ of [^()]+\)$/)
      await terminal.leave('Escape')
    } finally {
      terminal.close()
    }
    const status = JSON.parse((await cli(dir, ['server', 'status', 's1', '--json'], NO_DEFAULTS)).stdout)
    expect(status.status).to.equal('running')
  })

  it('prints the help when run alone without a terminal', async () => {
    const help = await cli(tempDir(), [], NO_DEFAULTS)
    expect(help.code).to.equal(0)
    expect(help.stdout).to.include('USAGE').and.include('menu')
    const menu = await cli(tempDir(), ['menu'], NO_DEFAULTS)
    expect(menu.code).to.equal(64)
    expect(menu.stderr).to.include('the interactive menu needs a terminal')
  })
})
