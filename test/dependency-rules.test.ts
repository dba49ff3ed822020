import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'chai'
import { ROOT } from './helpers/run'
import { tempDir } from './helpers/temp-dir'

interface Violation {
  readonly rule: string
  readonly from: string
  readonly to: string
}

/** depcheck-sources.cjs, the check of .dependency-cruiser.cjs's rules on the TypeScript sources. */
const { checkSources } = require(join(ROOT, 'depcheck-sources.cjs')) as {
  checkSources(root: string): Violation[]
}

/** A source tree of `files` (path → text) in a fresh directory. */
function tree(files: Record<string, string>): string {
  const root = tempDir('sm-depcheck-')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

const shared = {
  'kernel/index.ts': 'export type Id = string\n',
  'services/b/contract.ts': "import type { Id } from '../../kernel'\nexport interface Record { id: Id }\n",
  'services/b/impl.ts':
    "import type { Record } from './contract'\nexport class Store { all(): Record[] { return [] } }\n",
}

describe('the dependency rules on the TypeScript sources', () => {
  it("fails on a type-only import of another service's code, which the compiled JavaScript no longer shows", () => {
    const root = tree({
      ...shared,
      'services/a/uses.ts':
        "import type { Store } from '../b/impl'\nexport const size = (s: Store) => s.all().length\n",
    })
    expect(checkSources(root)).to.deep.equal([
      {
        rule: 'service-imports-another-service',
        from: 'services/a/uses.ts',
        to: 'services/b/impl.ts',
        specifier: '../b/impl',
      },
    ])
  })

  it('fails on a type in an `import(…)` type and on a contract that imports its own service', () => {
    const root = tree({
      ...shared,
      'services/a/uses.ts': "export type S = import('../b/impl').Store\n",
      'services/b/contract.ts': "export type { Store } from './impl'\n",
    })
    expect(checkSources(root).map(({ rule, from, to }) => `${rule} ${from} ${to}`)).to.have.members([
      'service-imports-another-service services/a/uses.ts services/b/impl.ts',
      'contract-is-a-leaf services/b/contract.ts services/b/impl.ts',
    ])
  })

  it("passes another service's contract, and ignores what only looks like an import (comments, strings, templates)", () => {
    const root = tree({
      ...shared,
      'services/a/uses.ts': [
        "import type { Record } from '../b/contract'",
        "// import type { Store } from '../b/impl'",
        "/* export * from '../b/impl' */",
        'export const text = "import \'../b/impl\'"',
        "export const template = `require('../b/impl') ${1 + 1} from '../b/impl'`",
        "export const pattern = /from '..\\/b\\/impl'/",
        'export const first = (records: Record[]) => records[0]',
        '',
      ].join('\n'),
    })
    expect(checkSources(root)).to.deep.equal([])
  })

  it('passes the real sources', () => {
    expect(checkSources(ROOT)).to.deep.equal([])
  })
})
