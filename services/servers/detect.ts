import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, posix } from 'node:path'
import type { ProfileName } from './profiles'

/**
 * How a Java Edition server directory is run, the arguments after `java`: modern Forge and
 * NeoForge by their argument files (`@user_jvm_args.txt @libraries/…/unix_args.txt`, what their
 * `run.sh` does), any other by its jar (`-jar <jar>`). Undefined when it is not one.
 */
export function javaLaunch(dir: string): readonly string[] | undefined {
  const argFile = forgeArgFile(dir)
  if (argFile) {
    const own = existsSync(join(dir, 'user_jvm_args.txt')) ? ['@user_jvm_args.txt'] : []
    return [...own, `@${argFile}`, 'nogui']
  }
  const jar = serverJar(dir)
  return jar ? ['-jar', jar, 'nogui'] : undefined
}

/**
 * The jar a Java Edition server directory runs. A loader's launcher comes before the vanilla jar
 * it loads (Fabric's `fabric-server-launch.jar` beside `server.jar`, an old Forge's
 * `forge-<version>.jar` beside `minecraft_server.<version>.jar`); else `server.jar`; else the
 * only jar in it. Installers are never run.
 */
export function serverJar(dir: string): string | undefined {
  const jars = readdirSync(dir)
    .filter((file) => file.endsWith('.jar') && !/installer/i.test(file))
    .sort()
  const launcher =
    jars.find((jar) => /^fabric-server-.*launch/.test(jar)) ??
    jars.find((jar) => /^(?:quilt-server-|forge-|neoforge-).*\.jar$/.test(jar) && !/universal|shim/.test(jar))
  if (launcher) return launcher
  if (jars.includes('server.jar')) return 'server.jar'
  return jars.length === 1 ? jars[0] : undefined
}

/**
 * A modern Forge or NeoForge's argument file (`libraries/net/minecraftforge/forge/<version>/unix_args.txt`,
 * `libraries/net/neoforged/neoforge/<version>/unix_args.txt`), relative and with `/`; the newest
 * version's when several are installed.
 */
function forgeArgFile(dir: string): string | undefined {
  for (const loader of ['net/neoforged/neoforge', 'net/minecraftforge/forge']) {
    const root = join(dir, 'libraries', ...loader.split('/'))
    if (!existsSync(root) || !statSync(root).isDirectory()) continue
    const versions = readdirSync(root)
      .filter((version) => existsSync(join(root, version, 'unix_args.txt')))
      .sort(new Intl.Collator('en', { numeric: true }).compare)
    const newest = versions.at(-1)
    if (newest) return posix.join('libraries', loader, newest, 'unix_args.txt')
  }
  return undefined
}

/** The profile a server directory looks like: bedrock with a bedrock_server, java when it can be run by `java`, else generic. */
export function detectProfile(dir: string): ProfileName {
  if (existsSync(join(dir, 'bedrock_server'))) return 'bedrock'
  if (javaLaunch(dir)) return 'java'
  return 'generic'
}
