import 'reflect-metadata'
import { container, type DependencyContainer } from 'tsyringe'
import { SmError } from './errors'
import type { Token } from './token'

/**
 * The service registry: a tsyringe child container per kernel, so several kernels can live in
 * one process. Only explicit tokens are used; nothing relies on decorator metadata.
 */
export class Registry {
  readonly #container: DependencyContainer = container.createChildContainer()

  /** Makes `value` resolvable under `token`; a later provide replaces it. */
  provide<T>(token: Token<T>, value: T): void {
    this.#container.registerInstance(token, value)
  }

  has(token: Token<unknown>): boolean {
    return this.#container.isRegistered(token)
  }

  resolve<T>(token: Token<T>): T {
    if (!this.#container.isRegistered(token)) {
      throw new SmError('SM_ERR_KERNEL_NOT_REGISTERED', { token: token.description ?? String(token) })
    }
    return this.#container.resolve(token)
  }

  clear(): void {
    this.#container.clearInstances()
  }
}
