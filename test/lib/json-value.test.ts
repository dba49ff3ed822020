import { expect } from 'chai'
import { frozenJsonCopy, JsonValueError, measureJson } from '../../lib/json-value'

describe('lib/json-value: JSON values', () => {
  it('copies a payload deeply frozen, leaving the original free, in one walk', () => {
    const original = { name: 'Steve', at: [1, 64, { dim: 'nether' }], meta: { ok: true, none: null } }
    const copy = frozenJsonCopy(original, 1024)
    expect(copy).to.deep.equal(original)
    expect(copy).to.not.equal(original)
    for (const part of [copy, copy.at, copy.at[2], copy.meta]) expect(Object.isFrozen(part)).to.equal(true)
    expect(Object.isFrozen(original.at)).to.equal(false)
    original.meta.ok = false
    expect(copy.meta.ok).to.equal(true)
  })

  it('keeps what JSON keeps: fields holding undefined are left out, a __proto__ key stays data', () => {
    const copy = frozenJsonCopy(JSON.parse('{"__proto__":{"polluted":true},"kept":1}'), 1024) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype)
    expect(Object.keys(copy)).to.deep.equal(['__proto__', 'kept'])
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined)
    expect(frozenJsonCopy({ a: 1, gone: undefined }, 1024)).to.deep.equal({ a: 1 })
  })

  it('names the path to the first thing JSON cannot hold, and refuses what is too large', () => {
    const cyclic: Record<string, unknown> = { list: [] }
    ;(cyclic.list as unknown[]).push({ back: cyclic })
    for (const [value, message] of [
      [{ a: [1, { b: Number.NaN }] }, 'a[1].b is NaN, which JSON cannot hold'],
      [{ when: new Date(0) }, 'when is a Date, not a plain object'],
      [[() => 1], '[0] is a function, which JSON cannot hold'],
      [cyclic, 'list[0].back refers to itself (a cycle)'],
      [{ big: 'x'.repeat(100) }, 'it is larger than 50 bytes (at big)'],
    ] as const) {
      for (const walk of [frozenJsonCopy, measureJson])
        expect(() => walk(value, 50), message)
          .to.throw(JsonValueError)
          .with.property('message', message)
    }
  })
})
