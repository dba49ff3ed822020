import { join } from 'node:path'

/** The source `plugin new` writes: a working plugin that shows each extension point briefly. */
export function pluginTemplate(name: string): string {
  const className = name
    .replace(/(^|[-_])([a-z0-9])/gi, (_m, _sep, c: string) => c.toUpperCase())
    .replace(/^[0-9]/, 'P$&')
  return `import { type AfterPayload, type BeforePayload, PluginBase } from 'server-manager'

/**
 * ${className}: describe what your plugin does here. This comment becomes its description in
 * 'server-manager plugin list'.
 */
export default class ${className} extends PluginBase<${className}> {
  // Mandatory. Bump it when you change the plugin.
  static version = '0.1.0'
  static author = 'you'

  // Runs when the plugin loads: register custom-event listeners here.
  override async onLoad() {
    this.logger.info('${name} loaded')
    await this.api.listenForEvent('${name}:hello', (payload, meta) => {
      this.logger.info(\`hello from \${meta.sender}\`, payload)
    })
  }

  // A before_* hook may veto its action by returning { cancel: true, reason }.
  beforeSettingUpdate({ key }: BeforePayload<'setting_update'>) {
    if (key === 'custom.${name}_locked') return { cancel: true, reason: '${name} keeps this one fixed' } as const
    return undefined
  }

  // An after_* hook always runs, with result.status 'success', 'error' or 'cancelled'.
  afterSettingUpdate({ key, result }: AfterPayload<'setting_update'>) {
    this.logger.info(\`\${key} changed: \${result.status}\`)
  }

  override onUnload() {
    this.logger.info('${name} unloaded')
  }
}
`
}

/**
 * A tsconfig for the user plugins folder, so editors type-check plugins against this
 * installation (every `.ts` file there, or just `files`).
 */
export function pluginsTsconfig(packageRoot: string, files?: readonly string[]): string {
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noImplicitOverride: true,
        noEmit: true,
        skipLibCheck: true,
        typeRoots: [join(packageRoot, 'node_modules', '@types')],
        types: ['node'],
        // Every entry a plugin may import: the SDK, its web routes and its CLI commands.
        paths: {
          'server-manager': [join(packageRoot, 'dist', 'index.d.ts')],
          'server-manager/web': [join(packageRoot, 'dist', 'web.d.ts')],
          'server-manager/cli': [join(packageRoot, 'dist', 'cli.d.ts')],
        },
      },
      ...(files ? { files } : { include: ['**/*.ts'] }),
    },
    null,
    2,
  )}\n`
}
