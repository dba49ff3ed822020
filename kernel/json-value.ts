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
  const seen = new Set<object>()
  let bytes = 0
  const add = (n: number, path: string): undefined => {
    bytes += n
    if (bytes > maxBytes)
      throw new JsonValueError(`it is larger than ${formatBytes(maxBytes)} (at ${path || 'the top'})`)
  }
  const walk = (item: unknown, path: string): undefined => {
    switch (typeof item) {
      case 'string':
        return add(Buffer.byteLength(item) + 2, path)
      case 'number':
        if (!Number.isFinite(item)) throw new JsonValueError(`${path || 'it'} is ${item}, which JSON cannot hold`)
        return add(String(item).length, path)
      case 'boolean':
        return add(5, path)
      case 'object': {
        if (item === null) return add(4, path)
        if (seen.has(item)) throw new JsonValueError(`${path || 'it'} refers to itself (a cycle)`)
        const isArray = Array.isArray(item)
        const proto = Object.getPrototypeOf(item)
        if (!isArray && proto !== Object.prototype && proto !== null) {
          throw new JsonValueError(
            `${path || 'it'} is a ${proto?.constructor?.name ?? 'class instance'}, not a plain object`,
          )
        }
        seen.add(item)
        add(2, path)
        if (isArray) {
          for (let index = 0; index < item.length; index++) walk(item[index], `${path}[${index}]`)
        } else {
          for (const [key, child] of Object.entries(item)) {
            if (child === undefined) continue // JSON leaves it out
            add(Buffer.byteLength(key) + 4, path)
            walk(child, path ? `${path}.${key}` : key)
          }
        }
        seen.delete(item)
        return
      }
      default:
        throw new JsonValueError(`${path || 'it'} is a ${typeof item}, which JSON cannot hold`)
    }
  }
  walk(value, '')
  return bytes
}

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}
