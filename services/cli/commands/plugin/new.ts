import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as Args from '@oclif/core/args'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'
import { pluginsTsconfig, pluginTemplate } from '../../plugin-template'

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export default class PluginNew extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Create a working, commented plugin in the user plugins folder'
  static override description =
    'Writes <data dir>/plugins/<name>.ts (never overwriting) and a tsconfig.json for editors there.'
  static override examples = ['<%= config.bin %> plugin new motd', '<%= config.bin %> plugin enable motd']
  static override args = {
    name: Args.string({ description: 'the plugin name: letters, digits, _ and -', required: true }),
  }

  async run(): Promise<void> {
    const { args } = await this.parse(PluginNew)
    if (!NAME.test(args.name)) throw new SmError('SM_ERR_PLUGIN_INVALID_NAME', { plugin: args.name })
    const { value } = await this.request('settings:get', { key: 'paths.plugins' })
    const dir = String(value)
    const file = join(dir, `${args.name}.ts`)
    for (const taken of [file, join(dir, args.name)]) {
      if (existsSync(taken)) throw new SmError('SM_ERR_PLUGIN_SCAFFOLD_EXISTS', { path: taken })
    }
    mkdirSync(dir, { recursive: true })
    writeFileSync(file, pluginTemplate(args.name), { flag: 'wx' })
    const tsconfig = join(dir, 'tsconfig.json')
    if (!existsSync(tsconfig)) writeFileSync(tsconfig, pluginsTsconfig(this.config.root))
    this.log(`Created ${file}`)
    this.log(`Enable it with: ${this.config.bin} plugin enable ${args.name}`)
  }
}
