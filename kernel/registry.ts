import 'reflect-metadata'
import { container, type DependencyContainer } from 'tsyringe'
import { SmError } from './errors'

/** An explicit injection token carrying the type of what it resolves to. */
export type Token<T> = symbol & { readonly __type?: T }

export function createToken<T>(description: string): Token<T> {
  return Symbol(description) as Token<T>
}

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
