/**
 * The module boundaries of .dependency-cruiser.cjs, checked on the TypeScript sources (`npm run
 * depcheck` runs it after dependency-cruiser has checked dist/). dependency-cruiser reads the
 * compiled JavaScript, where an `import type` is gone; here every module a source file names counts,
 * whether it is code at run time or a type only: `import … from`, `import type … from`, `export …
 * from`, `import '…'`, `import('…')` (a dynamic import or an import type), `require('…')` and
 * `declare module '…'` (an augmentation).
 *
 * The rules are .dependency-cruiser.cjs's own `forbidden` list, read from it and applied to each
 * source file under the name its compiled file has (`services/cli/session.ts` is checked as
 * `dist/services/cli/session.js`), so they are written once. Of dependency-cruiser's rule language
 * it knows what that list uses: `from.path`, `from.pathNot`, `to.path`, `to.pathNot` (with `$1`…
 * standing for `from.path`'s groups) and, with `scope: 'folder'` and `to.circular`, a cycle between
 * the folders that `from.path` matches.
 *
 * Comments, strings and template literals are skipped by a small scanner, so a specifier is taken
 * only where the code names a module; one that names a file of ours that does not exist is reported.
 */
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs')
const { dirname, join, relative, resolve, sep } = require('node:path')

/** The folders and root files that are the product (what dependency-cruiser sees in dist/, less test/ and bench/). */
const SOURCE_FOLDERS = ['kernel', 'lib', 'services']

/** Every product .ts file under `root`, as paths relative to it with `/` separators. */
function sourceFiles(root) {
  const files = readdirSync(root).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path)
    }
  }
  for (const folder of SOURCE_FOLDERS) if (existsSync(join(root, folder))) walk(folder)
  return files.sort()
}

const WORD = /[A-Za-z0-9_$]/
/** Keywords after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'case', 'in', 'of', 'new', 'delete', 'void', 'throw', 'else', 'do'])

/**
 * The source as tokens (words, string literals' values, single punctuation characters), without
 * comments; a template literal's text is skipped and its `${…}` parts scanned as code.
 */
function tokens(text) {
  const out = []
  const templates = [] // brace depth at which each open template literal resumes
  let depth = 0
  let i = 0
  const skipTemplateText = () => {
    while (i < text.length) {
      const c = text[i]
      if (c === '\\') i += 2
      else if (c === '`') {
        i++
        out.push({ kind: 'string', value: undefined })
        return
      } else if (c === '$' && text[i + 1] === '{') {
        i += 2
        templates.push(depth)
        depth++
        return
      } else i++
    }
  }
  while (i < text.length) {
    const c = text[i]
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? text.length : end + 2
    } else if (c === "'" || c === '"') {
      let value = ''
      i++
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\') i++
        value += text[i]
        i++
      }
      i++
      out.push({ kind: 'string', value })
    } else if (c === '`') {
      i++
      skipTemplateText()
    } else if (c === '/') {
      const last = out[out.length - 1]
      const regex =
        !last ||
        (last.kind === 'punct' && !')]}'.includes(last.value)) ||
        (last.kind === 'word' && BEFORE_REGEX.has(last.value))
      i++
      if (regex) {
        let inClass = false
        while (i < text.length && (inClass || text[i] !== '/')) {
          if (text[i] === '\\') i++
          else if (text[i] === '[') inClass = true
          else if (text[i] === ']') inClass = false
          i++
        }
        i++
        while (i < text.length && WORD.test(text[i])) i++
        out.push({ kind: 'string', value: undefined })
      } else out.push({ kind: 'punct', value: '/' })
    } else if (WORD.test(c)) {
      let word = ''
      while (i < text.length && WORD.test(text[i])) word += text[i++]
      out.push({ kind: 'word', value: word })
    } else if (/\s/.test(c)) i++
    else {
      i++
      if (c === '{') depth++
      else if (c === '}') {
        depth--
        if (templates.length > 0 && templates[templates.length - 1] === depth) {
          templates.pop()
          skipTemplateText()
          continue
        }
      }
      out.push({ kind: 'punct', value: c })
    }
  }
  return out
}

/** The module specifiers a TypeScript source names. */
function specifiers(text) {
  const list = tokens(text)
  const found = []
  for (let k = 0; k < list.length; k++) {
    const t = list[k]
    const next = list[k + 1]
    const after = list[k + 2]
    const isString = (token) => token?.kind === 'string' && token.value !== undefined
    if (t.kind !== 'word') continue
    if (t.value === 'from' && isString(next)) found.push(next.value)
    else if (t.value === 'import' && isString(next)) found.push(next.value)
    else if (t.value === 'module' && list[k - 1]?.value === 'declare' && isString(next)) found.push(next.value)
    else if ((t.value === 'import' || t.value === 'require') && next?.value === '(' && isString(after))
      found.push(after.value)
  }
  return found
}

/** The source file a relative specifier names (`./x`, `./x.js`, `./x/index`), or undefined. */
function resolveSpecifier(root, from, specifier) {
  const base = resolve(root, dirname(from), specifier)
  const stem = base.replace(/\.(c|m)?js$/, '')
  const candidates = [`${stem}.ts`, `${stem}/index.ts`, base]
  const found = candidates.find((path) => existsSync(path) && statSync(path).isFile())
  return found && relative(root, found).split(sep).join('/')
}

/** Where dependency-cruiser sees a source file: its compiled file in dist/. */
const compiled = (path) => `dist/${path.replace(/\.ts$/, '.js')}`

/** `$1`… in a rule's `to` path replaced by the groups of its `from.path` match, as dependency-cruiser does. */
const withGroups = (pattern, groups) => oneOf(pattern).replace(/\$(\d)/g, (_, n) => groups[Number(n)] ?? '')

/** A rule's path: a regular expression, or a list of them of which one must match. */
const oneOf = (pattern) => (Array.isArray(pattern) ? pattern.join('|') : pattern)

/** Every import edge of the product sources: `{ from, to, specifier }`, paths relative to `root`. */
function edges(root) {
  const all = []
  const unresolved = []
  for (const file of sourceFiles(root)) {
    for (const specifier of specifiers(readFileSync(join(root, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue
      const to = resolveSpecifier(root, file, specifier)
      if (to) all.push({ from: file, to, specifier })
      else unresolved.push({ from: file, specifier })
    }
  }
  return { all, unresolved }
}

/** Folder-scope cycles of `rule`: an edge between two of its folders whose target folder leads back. */
function folderCycles(rule, graph) {
  const fromPath = new RegExp(oneOf(rule.from.path))
  const folderOf = (path) => fromPath.exec(compiled(path))?.[0].replace(/\/$/, '')
  const next = new Map()
  const examples = new Map()
  for (const edge of graph) {
    const a = folderOf(edge.from)
    const b = folderOf(edge.to)
    const groups = fromPath.exec(compiled(edge.from))
    if (!a || !b || a === b || !groups) continue
    if (!new RegExp(oneOf(rule.to.path)).test(compiled(edge.to))) continue
    if (rule.to.pathNot && new RegExp(withGroups(rule.to.pathNot, groups)).test(compiled(edge.to))) continue
    if (!next.has(a)) next.set(a, new Set())
    next.get(a).add(b)
    if (!examples.has(`${a} ${b}`)) examples.set(`${a} ${b}`, edge)
  }
  const reaches = (start, goal) => {
    const seen = new Set()
    const queue = [start]
    while (queue.length > 0) {
      const folder = queue.shift()
      if (folder === goal) return true
      if (seen.has(folder)) continue
      seen.add(folder)
      queue.push(...(next.get(folder) ?? []))
    }
    return false
  }
  const found = []
  for (const [a, targets] of next) for (const b of targets) if (reaches(b, a)) found.push(examples.get(`${a} ${b}`))
  return found
}

/**
 * The boundary violations of the TypeScript sources under `root` by `config`'s forbidden rules
 * (default: the .dependency-cruiser.cjs beside this file): `{ rule, from, to, specifier }`.
 */
function checkSources(root, config = require('./.dependency-cruiser.cjs')) {
  const { all, unresolved } = edges(root)
  const excluded = (config.options?.exclude?.path ?? []).map((pattern) => new RegExp(pattern))
  const graph = all.filter((edge) => !excluded.some((re) => re.test(compiled(edge.from)) || re.test(compiled(edge.to))))
  const violations = unresolved.map(({ from, specifier }) => ({ rule: 'unresolvable', from, to: specifier, specifier }))
  for (const rule of config.forbidden) {
    // What a file loads when it runs (agent-loads-light): the compiled code's check alone, since a
    // type import of the sources loads nothing.
    if (rule.to.reachable) continue
    if (rule.scope === 'folder' && rule.to.circular) {
      for (const edge of folderCycles(rule, graph)) violations.push({ rule: rule.name, ...edge })
      continue
    }
    const fromPath = new RegExp(oneOf(rule.from.path))
    for (const edge of graph) {
      const groups = fromPath.exec(compiled(edge.from))
      if (!groups || (rule.from.pathNot && new RegExp(oneOf(rule.from.pathNot)).test(compiled(edge.from)))) continue
      if (rule.to.path && !new RegExp(withGroups(rule.to.path, groups)).test(compiled(edge.to))) continue
      if (rule.to.pathNot && new RegExp(withGroups(rule.to.pathNot, groups)).test(compiled(edge.to))) continue
      violations.push({ rule: rule.name, ...edge })
    }
  }
  return violations
}

module.exports = { checkSources, specifiers }

if (require.main === module) {
  const violations = checkSources(__dirname)
  for (const { rule, from, to, specifier } of violations)
    console.error(`  error ${rule}: ${from} → ${to}${to === specifier ? '' : ` ('${specifier}')`}`)
  if (violations.length > 0) {
    console.error(`\nx ${violations.length} dependency violations in the TypeScript sources (.dependency-cruiser.cjs)`)
    process.exit(1)
  }
  console.log('✔ no dependency violations in the TypeScript sources')
}
