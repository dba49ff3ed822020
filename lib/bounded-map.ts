/**
 * A Map that keeps at most `max` keys, forgetting the first set first. A Map's oldest key is not
 * evicted through `keys().next()`: that walk skips every key deleted before it (V8 leaves them as
 * holes until the table is rebuilt), which at 10,000 keys cost about 8 us an insert (bench: web,
 * trigger_event). The order keys were set in is kept apart, in a queue with a moving head.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #max: number
  #order: K[] = []
  #head = 0
  /** Keys deleted by hand since the queue was last built: it may name them. */
  #stale = 0

  constructor(max: number) {
    super()
    this.#max = Math.max(1, max)
  }

  override set(key: K, value: V): this {
    if (!this.has(key)) {
      // A queue naming deleted keys (a key set again would be named twice) is built again first.
      if (this.#stale > 0 && (this.size >= this.#max || this.#order.length - this.#head > 2 * this.#max))
        this.#rebuild()
      while (this.size >= this.#max) super.delete(this.#order[this.#head++] as K)
      this.#order.push(key)
      if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
        this.#order = this.#order.slice(this.#head)
        this.#head = 0
      }
    }
    return super.set(key, value)
  }

  override delete(key: K): boolean {
    const had = super.delete(key)
    if (had) this.#stale++
    return had
  }

  override clear(): void {
    super.clear()
    this.#order = []
    this.#head = 0
    this.#stale = 0
  }

  #rebuild(): void {
    this.#order = [...this.keys()]
    this.#head = 0
    this.#stale = 0
  }
}
