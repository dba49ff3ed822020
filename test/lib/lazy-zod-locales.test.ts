import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { expect } from 'chai'

const LAZY = join(__dirname, '..', '..', 'lib', 'lazy-zod-locales.js')

/** What a fresh Node process with zod's locales made lazy sees (this one's zod was loaded long ago). */
function inFreshProcess(): Record<string, unknown> {
  const script = `
    require(${JSON.stringify(LAZY)}).lazyZodLocales()
    const loaded = () => Object.keys(require.cache).filter((path) => /[\\\\/]locales[\\\\/]/.test(path)).length
    const { z } = require('zod')
    const withZod = loaded()
    const english = z.string().safeParse(5).error.issues[0].message
    const names = Object.keys(z.locales)
    z.config(z.locales.de())
    const german = z.string().safeParse(5).error.issues[0].message
    console.log(JSON.stringify({ withZod, english, names: names.length, hasDe: 'de' in z.locales, german, all: loaded() }))
  `
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
}

describe('lib/lazy-zod-locales: zod loads its translations when first used', () => {
  it('loads English alone with zod, and every other locale, working, at its first use', () => {
    const seen = inFreshProcess()
    expect(seen.withZod).to.be.at.most(3)
    expect(seen.english).to.equal('Invalid input: expected string, received number')
    expect(seen.names).to.be.above(40)
    expect(seen.hasDe).to.equal(true)
    expect(seen.german).to.match(/^Ungültige Eingabe/)
    expect(seen.all).to.be.above(40)
  })
})
