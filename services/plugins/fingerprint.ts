import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs'
import { join, relative, sep } from 'node:path'

/** A file of a plugin that makes it unusable: a link out of its folder, to nothing, or in a loop; or unreadable. */
export interface BadFile {
  /** Its path inside the plugin's folder. */
  readonly file: string
  readonly reason: string
}

/**
 * A plugin's fingerprint: changes whenever one of its files changes (path, size, mtime), so
 * unchanged plugins need no import. Only node built-ins, so the CLI checks its cache cheaply.
 * Never follows a symbolic link: a link that resolves inside the plugin's folder is hashed as
 * its text (its target is hashed where it is), and any other link (outside, dangling, looping)
 * is reported as `bad` with the first such file, never thrown, so one plugin's files can stop
 * neither discovery nor any command. The plugin's own path may be a link (a file plugin linked
 * into the plugins folder): its real path is the folder the rule applies to.
 */
export function fingerprint(root: string): { hash: string; bad?: BadFile } {
  const hash = createHash('sha1')
  let bad: BadFile | undefined
  let base: string
  try {
    base = realpathSync(root)
  } catch (error) {
    return { hash: '', bad: { file: '.', reason: linkReason(error) } }
  }
  const inside = (path: string) => path === base || path.startsWith(base.endsWith(sep) ? base : base + sep)
  const walk = (path: string): void => {
    try {
      const stat = lstatSync(path)
      if (stat.isSymbolicLink()) {
        let target: string
        try {
          target = realpathSync(path)
        } catch (error) {
          bad ??= { file: relative(base, path), reason: linkReason(error) }
          return
        }
        if (!inside(target))
          bad ??= { file: relative(base, path), reason: "links to a place outside the plugin's folder" }
        else hash.update(`${path}\0->${readlinkSync(path)}\n`)
      } else if (stat.isDirectory()) {
        for (const child of readdirSync(path).sort())
          if (child !== 'node_modules' && !child.startsWith('.')) walk(join(path, child))
      } else hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`)
    } catch (error) {
      bad ??= {
        file: relative(base, path) || '.',
        reason: `cannot be read (${(error as { code?: string }).code ?? 'error'})`,
      }
    }
  }
  walk(base)
  return { hash: hash.digest('hex').slice(0, 16), bad }
}

/** The fingerprint's hash alone (the CLI's cache check: a plugin with a bad file then just looks changed). */
export function hashOf(root: string): string {
  return fingerprint(root).hash
}

function linkReason(error: unknown): string {
  const code = (error as { code?: string }).code
  if (code === 'ELOOP') return 'is a symbolic link that loops'
  if (code === 'ENOENT') return 'is a symbolic link to nothing'
  return `cannot be read (${code ?? 'error'})`
}
