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

  /** Takes `item` back without disposing it (it was released some other way). */
  remove(item: Disposable): void {
    const index = this.#items.lastIndexOf(item)
    if (index >= 0) this.#items.splice(index, 1)
  }

  get size(): number {
    return this.#items.length
  }

  dispose(): void {
    for (let item = this.#items.pop(); item; item = this.#items.pop()) item.dispose()
  }
}
