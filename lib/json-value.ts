import { setOwnProperty } from './own-property'

/** Why a value cannot travel as JSON (the caller wraps it in its own coded error). */
export class JsonValueError extends Error {
  override readonly name = 'JsonValueError'
}

/**
 * Checks that `value` is plain JSON (objects, arrays, strings, finite numbers, booleans, null;
 * no cycles) and at most `maxBytes` as UTF-8 JSON text, and returns that size. It walks the value
 * and stops at the first problem, so a 200 MB payload is refused without being copied or
 * serialised.
 */
export function measureJson(value: unknown, maxBytes: number): number {
  const walker = new JsonWalker(maxBytes, false)
  walker.walk(value)
  return walker.bytes
}

/**
 * A deeply frozen copy of `value`, checked as `measureJson` checks it, in the same one walk:
 * what a listener gets, so none can change what the next one sees. Fields holding `undefined`
 * are left out, as JSON leaves them out.
 */
export function frozenJsonCopy<T>(value: T, maxBytes: number): T {
  return new JsonWalker(maxBytes, true).walk(value) as T
}

/** One walk over a value: its JSON size, its problems (with the path to them), and a frozen copy when asked. */
class JsonWalker {
  bytes = 0
  readonly #maxBytes: number
  readonly #copy: boolean
  readonly #ancestors = new Set<object>()
  /** The path to the item being walked, built into text only for an error. */
  readonly #keys: (string | number)[] = []

  constructor(maxBytes: number, copy: boolean) {
    this.#maxBytes = maxBytes
    this.#copy = copy
  }

  walk(item: unknown): unknown {
    switch (typeof item) {
      case 'string':
        this.#add(Buffer.byteLength(item) + 2)
        return item
      case 'number':
        if (!Number.isFinite(item)) throw this.#error(`is ${item}, which JSON cannot hold`)
        this.#add(String(item).length)
        return item
      case 'boolean':
        this.#add(5)
        return item
      case 'object':
        if (item !== null) return this.#container(item)
        this.#add(4)
        return null
      default:
        throw this.#error(`is a ${typeof item}, which JSON cannot hold`)
    }
  }

  #container(item: object): unknown {
    if (this.#ancestors.has(item)) throw this.#error('refers to itself (a cycle)')
    const isArray = Array.isArray(item)
    const proto = Object.getPrototypeOf(item)
    if (!isArray && proto !== Object.prototype && proto !== null)
      throw this.#error(`is a ${proto?.constructor?.name ?? 'class instance'}, not a plain object`)
    this.#ancestors.add(item)
    this.#add(2)
    const keys = this.#keys
    let copy: unknown[] | Record<string, unknown> | undefined
    if (isArray) {
      const array = item as unknown[]
      const out = this.#copy ? new Array<unknown>(array.length) : undefined
      for (let index = 0; index < array.length; index++) {
        keys.push(index)
        const child = this.walk(array[index])
        if (out) out[index] = child
        keys.pop()
      }
      copy = out
    } else {
      const object = item as Record<string, unknown>
      const out: Record<string, unknown> | undefined = this.#copy ? {} : undefined
      for (const key of Object.keys(object)) {
        const value = object[key]
        if (value === undefined) continue // JSON leaves it out
        this.#add(Buffer.byteLength(key) + 4)
        keys.push(key)
        const child = this.walk(value)
        // A '__proto__' key is data, as in JSON.parse, never the copy's prototype.
        if (out) setOwnProperty(out, key, child)
        keys.pop()
      }
      copy = out
    }
    this.#ancestors.delete(item)
    return copy && Object.freeze(copy)
  }

  #add(n: number): void {
    this.bytes += n
    if (this.bytes > this.#maxBytes)
      throw new JsonValueError(`it is larger than ${formatBytes(this.#maxBytes)} (at ${this.#path() || 'the top'})`)
  }

  #error(problem: string): JsonValueError {
    return new JsonValueError(`${this.#path() || 'it'} ${problem}`)
  }

  #path(): string {
    let path = ''
    for (const key of this.#keys) path += typeof key === 'number' ? `[${key}]` : path ? `.${key}` : key
    return path
  }
}

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}
