import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { z } from 'zod'
import { apiReference } from '../../services/plugins/api-reference'
import { hookMethodName } from '../../services/plugins/hook-catalogue'
import { managerCatalogue } from '../helpers/manager'
import { ROOT } from '../helpers/run'

/**
 * Checks (or, with SM_WRITE_DOCS=1, rewrites) the part of a doc between
 * `<!-- generated: <name> -->` and `<!-- end generated -->`.
 */
function checkSection(file: string, name: string, body: string): void {
  const path = join(ROOT, 'docs', file)
  const text = readFileSync(path, 'utf8')
  const start = `<!-- generated: ${name} -->\n`
  const end = '<!-- end generated -->'
  const from = text.indexOf(start)
  const to = text.indexOf(end, from)
  expect(from, `${file} has no "${start.trim()}" marker`).to.be.greaterThan(-1)
  const expected = `${text.slice(0, from + start.length)}${body}${text.slice(to)}`
  if (process.env.SM_WRITE_DOCS === '1') writeFileSync(path, expected)
  expect(readFileSync(path, 'utf8'), `regenerate docs/${file} (SM_WRITE_DOCS=1)`).to.equal(expected)
}

/** An action payload schema's fields, `?` marking those that may be absent. */
function payloadFields(schema: z.ZodType): string {
  const object = schema instanceof z.ZodReadonly ? schema.unwrap() : schema
  if (!(object instanceof z.ZodObject)) return ''
  return Object.entries(object.shape as Record<string, z.ZodType>)
    .map(([key, field]) => `\`${key}${field.safeParse(undefined).success ? '?' : ''}\``)
    .join(', ')
}

const code = (value: unknown) => `\`${JSON.stringify(value)}\``

/** Grouped by owner, each in its declaration order: a page must not depend on the order services are added in. */
const byOwner = <T extends { readonly owner: string }>(entries: readonly T[]): T[] =>
  [...entries].sort((a, b) => a.owner.localeCompare(b.owner))

describe('docs generated from what the services declare', () => {
  it('docs/settings.md lists every declared setting with its default', () => {
    const rows = byOwner(managerCatalogue().settings()).map(({ key, owner, spec }) => {
      const fallback =
        typeof spec.default === 'function'
          ? `\`${String((spec.default as (c: { dataDir: string }) => unknown)({ dataDir: '<data dir>' }))}\``
          : code(spec.default)
      const rule = spec.rule?.(Symbol('probe'))
      return `| \`${key}\` | ${fallback} | ${spec.summary}${rule ? `; ${rule.replace(/^it must be /, '')}` : ''} | ${owner} |`
    })
    const body = [
      '| key | default | what | declared by |',
      '|---|---|---|---|',
      ...rows,
      '| `custom.*` | | free area for plugins and scripts: any JSON value | settings |',
      '',
    ].join('\n')
    checkSection('settings.md', 'settings', body)
  })

  it('docs/plugins.md lists every hook of every declared action', () => {
    const rows = byOwner(managerCatalogue().actions()).map(
      ({ name, owner, declaration }) =>
        `| \`${name}\` | \`${hookMethodName(`before_${name}`)}\`, \`${hookMethodName(`after_${name}`)}\` | ${declaration.summary} | ${payloadFields(declaration.payload)} | ${declaration.identity.map((k) => `\`${k}\``).join(', ')} | ${owner} |`,
    )
    const body = [
      '| action | hook methods | when | payload (`after_*`: and `result`) | identity (loop guard) | declared by |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n')
    checkSection('plugins.md', 'hooks', body)
  })

  it("docs/plugins.md's this.api reference is the operations table and the commands' api doors, aliases included", () => {
    checkSection('plugins.md', 'api', apiReference(managerCatalogue().commands()))
  })
})
