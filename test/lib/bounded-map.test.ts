import { expect } from 'chai'
import { BoundedMap } from '../../lib/bounded-map'

describe('lib/bounded-map', () => {
  it('keeps at most its size, forgetting the first set first; setting a known key again keeps its place', () => {
    const map = new BoundedMap<string, number>(3)
    for (const key of ['a', 'b', 'c']) map.set(key, 1)
    map.set('a', 2)
    map.set('d', 1)
    expect([...map.keys()]).to.deep.equal(['b', 'c', 'd'])
    expect(map.get('b')).to.equal(1)
    map.set('e', 1)
    expect([...map.entries()]).to.deep.equal([
      ['c', 1],
      ['d', 1],
      ['e', 1],
    ])
  })

  it('forgets only what it must when keys were deleted by hand, and after clear starts over', () => {
    const map = new BoundedMap<number, number>(3)
    for (let i = 0; i < 3; i++) map.set(i, i)
    map.delete(0)
    map.set(3, 3)
    expect([...map.keys()]).to.deep.equal([1, 2, 3])
    // Deleted and set again: it is the newest, not forgotten in its old place.
    map.delete(1)
    map.set(1, 1)
    map.set(4, 4)
    expect([...map.keys()]).to.deep.equal([3, 1, 4])
    map.clear()
    for (let i = 10; i < 14; i++) map.set(i, i)
    expect([...map.keys()]).to.deep.equal([11, 12, 13])
  })

  it('stays at its size through many inserts and deletes by hand, the oldest kept keys going first', () => {
    const map = new BoundedMap<number, number>(100)
    for (let i = 0; i < 50_000; i++) {
      map.set(i, i)
      if (i % 3 === 0) map.delete(i)
    }
    expect(map.size).to.equal(100)
    const kept = [...map.keys()]
    expect(kept.at(-1)).to.equal(49_999)
    expect(kept).to.deep.equal(kept.slice().sort((a, b) => a - b))
    expect(kept.every((k) => k % 3 !== 0 && k > 49_000)).to.equal(true)
  })
})
