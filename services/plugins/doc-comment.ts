import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/

/**
 * The doc comment (`/** … *\/`) right above `class <name>`, whitespace collapsed, `@tags`
 * dropped. Looks in the entry file first, then in the package's other files (a package may
 * define its class in another module and re-export it).
 */
export function classDescription(entry: string, root: string, className: string): string | undefined {
  const files = [entry, ...(statSync(root).isDirectory() ? sourceFiles(root).filter((f) => f !== entry) : [])]
  for (const file of files) {
    const found = commentAbove(readFileSync(file, 'utf8'), className)
    if (found) return found
  }
  return undefined
}

function commentAbove(text: string, className: string): string | undefined {
  const name = className.replace(/[$]/g, '\\$')
  const pattern = new RegExp(
    String.raw`\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(?:@[\w.]+(?:\([^)]*\))?\s*)*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+${name}\b`,
  )
  const body = pattern.exec(text)?.[1]
  if (body === undefined) return undefined
  const lines = body
    .split('\n')
    .map((line) => line.replace(/^\s*\*?\s?/, ''))
    .filter((line) => !line.trimStart().startsWith('@'))
  const description = lines.join(' ').replace(/\s+/g, ' ').trim()
  return description || undefined
}

// Links are not followed (lstat): discovery allows only links inside the plugin, whose targets are found where they are.
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules' || name.startsWith('.')) return []
    const stat = lstatSync(path)
    if (stat.isDirectory()) return sourceFiles(path)
    return stat.isFile() && SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}
