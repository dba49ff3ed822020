/**
 * Sets `key` on `target` as its own enumerable data property. Unlike `target[key] = value`, a
 * `__proto__` key (which JSON.parse turns into an ordinary key) stays data: an assignment
 * would replace the object's prototype instead, losing the key and lending the object
 * inherited values.
 */
export function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}
