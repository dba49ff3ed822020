import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { errorCatalogue } from '../../kernel'
import { ROOT } from '../helpers/run'

/** The table rows docs/errors.md must contain, one per code, in catalogue order. */
function catalogueRows(): string[][] {
  return Object.entries(errorCatalogue).map(([code, spec]) => [
    `\`${code}\``,
    String(spec.status),
    String(spec.exit),
    spec.when,
  ])
}

/** The cells of a Markdown table row, whatever its padding. */
const cells = (row: string) =>
  row
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim())

describe('kernel/error-catalogue', () => {
  it('is documented in docs/errors.md, row for row', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')
    const rows = doc
      .split('\n')
      .filter((line) => line.startsWith('| `SM_ERR_'))
      .map(cells)
    expect(rows, 'regenerate the table from kernel/error-catalogue.ts').to.deep.equal(catalogueRows())
  })

  it('uses SM_ERR_<AREA>_<PROBLEM> codes, HTTP statuses and exit codes in range, and messages that end a sentence', () => {
    for (const [code, spec] of Object.entries(errorCatalogue)) {
      expect(code).to.match(/^SM_ERR_[A-Z]+(_[A-Z]+)*$/)
      expect(spec.status).to.be.within(400, 599)
      expect(spec.exit).to.be.within(1, 125)
      const message = (spec.message as (p: Record<string, string>) => string)(
        new Proxy({}, { get: (_t, key) => `<${String(key)}>` }),
      )
      expect(message, code).to.match(/[.)>]$/)
    }
  })
})
