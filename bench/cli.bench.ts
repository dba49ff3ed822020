import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createManager, silentLogger } from '../manager'
import { bareOclifCli } from './daemon.bench'
import { type Comparison, compare } from './harness'

const CLI = join(__dirname, '..', '..', 'bin', 'run.js')

/** A user plugin contributing one command, `<name> run`, in a topic of its own. */
function commandPlugin(name: string): string {
  return `import { PluginBase } from 'server-manager'
import { Command, Flags } from 'server-manager/cli'
class Run extends Command {
  static id = 'run'
  static summary = 'Run ${name}'
  static examples = ['<%= config.bin %> ${name} run --times 2']
  static flags = { times: Flags.integer({ description: 'how often', default: 1 }) }
  async run() { const { flags } = await this.parse(Run); this.log('${name} x' + flags.times) }
}
export default class P extends PluginBase {
  static version = '1.0.0'
  getCliCommands() { return [{ name: '${name}', description: 'The ${name} plugin', commands: [Run] }] }
}
`
}

/** A user plugin that hooks server starts, and nothing else. */
function startHookPlugin(): string {
  return `import { PluginBase } from 'server-manager'
export default class P extends PluginBase {
  static version = '1.0.0'
  async beforeServerStart() {}
}
`
}

/**
 * A data directory with `count` enabled plugins `tool<i>`, each `source(name)` (default: one
 * contributing a command; their CLI cache written).
 */
async function dataDirWithPlugins(
  dir: string,
  count: number,
  source: (name: string) => string = commandPlugin,
): Promise<string> {
  const dataDir = join(dir, `cli-${count}-${source.name}`)
  mkdirSync(join(dataDir, 'plugins'), { recursive: true })
  for (let i = 0; i < count; i++) writeFileSync(join(dataDir, 'plugins', `tool${i}.ts`), source(`tool${i}`))
  const manager = createManager({ dataDir, logger: silentLogger, defaultPlugins: false })
  await manager.start()
  for (let i = 0; i < count; i++) await manager.bus.request('plugins:set_enabled', { name: `tool${i}`, enabled: true })
  await manager.stop()
  return dataDir
}

/**
 * `server-manager --help` as cold processes: with 50 (`count`) enabled plugins each contributing
 * a command against none, and against a bare oclif CLI with one command.
 */
export async function helpColdStartBench(
  dir: string,
  count = 50,
  quick = false,
): Promise<{ plugins: Comparison; bare: Comparison }> {
  const none = await dataDirWithPlugins(dir, 0)
  const many = await dataDirWithPlugins(dir, count)
  const bare = bareOclifCli(join(dir, 'bare-help-cli'))
  const runs = (args: string[], dataDir: string, expect: string) => ({
    run: (n: number) => {
      for (let i = 0; i < n; i++) {
        const env = { ...process.env, SM_DATA_DIR: dataDir, SM_DEFAULT_PLUGINS: 'off' }
        const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' })
        if (result.status !== 0 || !result.stdout.includes(expect))
          throw new Error(`${args.join(' ')} failed: ${result.stderr}`)
      }
    },
  })
  const options = { rounds: 11, perRound: 3, warmup: 2, quick }
  const withMany = runs([CLI, '--help'], many, `tool${count - 1}`)
  return {
    plugins: await compare(
      `cold \`server-manager --help\`: ${count} enabled plugins with a command each vs none`,
      {
        baseline: ['no plugins', runs([CLI, '--help'], none, 'USAGE')],
        candidate: [`${count} plugins, ${count} commands`, withMany],
      },
      options,
    ),
    bare: await compare(
      `cold \`--help\`: server-manager with ${count} plugin commands vs a bare oclif CLI with one command`,
      {
        baseline: ['bare oclif CLI, one command', runs([join(bare, 'run.js'), '--help'], none, 'USAGE')],
        candidate: [`server-manager, ${count} plugins`, withMany],
      },
      options,
    ),
  }
}

/**
 * `setting set` as a cold process with no manager running: with `count` enabled plugins that hook
 * only server starts against none (issue 36 item 2: a command loads the plugins only when its
 * action needs them; before, it loaded every enabled one, a thread each).
 */
export async function oneShotActionBench(dir: string, count = 30, quick = false): Promise<Comparison> {
  const none = await dataDirWithPlugins(dir, 0, startHookPlugin)
  const many = await dataDirWithPlugins(dir, count, startHookPlugin)
  let value = 0
  const runs = (dataDir: string) => ({
    run: (n: number) => {
      for (let i = 0; i < n; i++) {
        const env = { ...process.env, SM_DATA_DIR: dataDir, SM_DEFAULT_PLUGINS: 'off' }
        const args = [CLI, 'setting', 'set', 'custom.bench', String(++value)]
        const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' })
        if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`)
      }
    },
  })
  return compare(
    `cold \`setting set\`, no manager: ${count} enabled plugins that hook only server starts vs none`,
    { baseline: ['no plugins', runs(none)], candidate: [`${count} plugins`, runs(many)] },
    { rounds: 9, perRound: 2, warmup: 1, quick },
  )
}
