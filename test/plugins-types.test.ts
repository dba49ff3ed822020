import { cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { pluginsTsconfig } from '../services/cli/plugin-template'
import { ROOT, run } from './helpers/run'
import { tempDir } from './helpers/temp-dir'

const TSC = join(ROOT, 'node_modules', '.bin', 'tsc')
const FIXTURES = join(ROOT, 'test', 'fixtures', 'types')

/** Type-checks files with the very tsconfig `plugin new` gives plugin authors. */
async function typecheck(files: string[]): Promise<{ code: number | null; output: string }> {
  const dir = tempDir()
  writeFileSync(join(dir, 'tsconfig.json'), pluginsTsconfig(ROOT, files))
  const result = await run(TSC, ['-p', join(dir, 'tsconfig.json')], { timeoutMs: 60_000 })
  return { code: result.code, output: result.stdout + result.stderr }
}

describe('the plugin author package surface (types)', function () {
  this.timeout(90_000)

  it('compiles correct hooks and every example plugin against `server-manager`', async () => {
    const examples = join(ROOT, 'plugins', 'examples')
    const files = [
      join(FIXTURES, 'good.ts'),
      ...[
        'greeter',
        'pingplugin',
        'pongplugin',
        'custom_loop',
        'mirror_loop',
        'throwing_hook',
        'hanging_hook',
        'veto',
        'welcome',
      ].map((n) => join(examples, `${n}.ts`)),
      join(examples, 'event_sender', 'index.ts'),
    ]
    const { code, output } = await typecheck(files)
    expect(output).to.equal('')
    expect(code).to.equal(0)
  })

  it('compiles plugins in a plugins folder outside the package that import `server-manager/web` and `/cli`, with the tsconfig `plugin new` writes (issue 20)', async () => {
    // Outside the package, as a data directory's plugins are (inside it, a self-reference would resolve them).
    const folder = join(tempDir(), 'plugins')
    for (const name of ['web_example', 'native_page_example', 'greet'])
      cpSync(join(ROOT, 'plugins', 'examples', name), join(folder, name), { recursive: true })
    writeFileSync(join(folder, 'tsconfig.json'), pluginsTsconfig(ROOT))
    const result = await run(TSC, ['-p', join(folder, 'tsconfig.json')], { timeoutMs: 60_000 })
    expect(result.stdout + result.stderr).to.equal('')
    expect(result.code).to.equal(0)
  })

  it('refuses a misspelt hook name', async () => {
    const { code, output } = await typecheck([join(FIXTURES, 'misspelt-hook.ts')])
    expect(code).to.not.equal(0)
    expect(output).to.contain("'afterSettingUpdat' is not a hook")
  })

  it('refuses a misspelt payload field', async () => {
    const { code, output } = await typecheck([join(FIXTURES, 'misspelt-field.ts')])
    expect(code).to.not.equal(0)
    expect(output).to.contain("Property 'kye' does not exist on type 'AfterPayload<\"setting_update\">'")
  })

  it('refuses a hook declared with a payload the event does not have', async () => {
    const { code, output } = await typecheck([join(FIXTURES, 'wrong-payload.ts')])
    expect(code).to.not.equal(0)
    expect(output).to.contain("Property 'pluginNmae' is missing")
  })

  it('refuses a this.api argument its table does not declare', async () => {
    const { code, output } = await typecheck([join(FIXTURES, 'wrong-api-argument.ts')])
    expect(code).to.not.equal(0)
    expect(output).to.contain(
      `Argument of type '"sideways"' is not assignable to parameter of type '"detached" | "direct" | undefined'`,
    )
  })
})
