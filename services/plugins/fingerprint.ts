import { createHash } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A plugin's fingerprint: changes whenever one of its files changes (path, size, mtime), so
 * unchanged plugins need no import. Only node built-ins, so the CLI checks its cache cheaply.
 */
export function hashOf(root: string): string {
  const hash = createHash('sha1')
  const walk = (path: string): void => {
    const stat = statSync(path)
    if (stat.isDirectory()) {
      for (const child of readdirSync(path).sort())
        if (child !== 'node_modules' && !child.startsWith('.')) walk(join(path, child))
    } else hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`)
  }
  walk(root)
  return hash.digest('hex').slice(0, 16)
}
