/** A registration that can be undone: a listener, a command handler, a mount. */
export interface Disposable {
  dispose(): void
}

/** Collects disposables and releases them newest first, so teardown mirrors setup. */
export class DisposableStack implements Disposable {
  readonly #items: Disposable[] = []

  add<T extends Disposable>(item: T): T {
    this.#items.push(item)
    return item
  }

  get size(): number {
    return this.#items.length
  }

  dispose(): void {
    for (let item = this.#items.pop(); item; item = this.#items.pop()) item.dispose()
  }
}
