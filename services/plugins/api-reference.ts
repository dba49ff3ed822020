import type { CommandSpec, MessageEntry } from '../../kernel'
import { describeApi } from './api-table'

/**
 * docs/plugins.md's `this.api` reference (its `api` section) for a kernel's commands: one row
 * per operation, the table's and the commands' `api` doors', with its parameters, kind,
 * description and aliases.
 */
export function apiReference(commands: readonly MessageEntry<CommandSpec>[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|')
  const rows = describeApi(commands).map(({ name, aliases, kind, parameters, description }) => {
    const params = parameters.map((p) => `${p.name}: ${p.type}${p.default === undefined ? '' : ` = ${p.default}`}`)
    const names = aliases.map((alias) => `\`${alias}\``).join(', ')
    return `| ${cell(`\`${name}(${params.join(', ')})\``)} | ${kind} | ${cell(description)} | ${names} |`
  })
  return ['| operation | kind | what it does, what it resolves to | aliases |', '|---|---|---|---|', ...rows, ''].join(
    '\n',
  )
}
