import type { z } from 'zod'
import { ActionCatalogue, type ActionEntry } from './action-catalogue'
import { type CommandSpec, ContractCatalogue, type MessageEntry } from './contract-catalogue'
import { tagOf } from './declaration'
import { type CatalogueEntry, ErrorCatalogue, knowErrors } from './error-catalogue'
import { SettingCatalogue, type SettingEntry, type SettingSpec } from './setting-catalogue'

/**
 * What one kernel knows: the commands, events, actions, error codes and settings its services
 * declared (`Service.declares`), recorded when each service is added. Two kernels in one process
 * share none of it, as Fastify's declarations hang off the instance they were registered on.
 * The bus checks messages against it; everything that documents or checks a declaration (the
 * bridge, the HTTP layer, the event log's renames, the plugins' hooks, docs) reads it here.
 */
export class Catalogue {
  readonly #contracts = new ContractCatalogue()
  readonly #actions = new ActionCatalogue()
  readonly #errors = new ErrorCatalogue()
  readonly #settings = new SettingCatalogue()

  /**
   * Records declarations made with `defineCommands`, `defineEvents`, `defineActions`,
   * `defineErrors` and `defineSettings`. Error codes also become known to the process (what a
   * code means is the same everywhere: `knowErrors`).
   */
  add(declarations: readonly object[], by: string): void {
    for (const declaration of declarations) {
      const tag = tagOf(declaration)
      if (!tag) throw new Error(`${by} declares something no define… function made`)
      if (tag.kind === 'commands' || tag.kind === 'events')
        this.#contracts.add(tag.kind, tag.owner, declaration, tag.formerly)
      else if (tag.kind === 'actions') this.#actions.add(tag.owner, declaration)
      else if (tag.kind === 'settings')
        this.#settings.add(tag.owner, declaration as Readonly<Record<string, SettingSpec>>)
      else {
        this.#errors.add(tag.owner, declaration)
        knowErrors(declaration)
      }
    }
  }

  commands(): readonly MessageEntry<CommandSpec>[] {
    return this.#contracts.commands()
  }

  events(): readonly MessageEntry<z.ZodType>[] {
    return this.#contracts.events()
  }

  /** Every declared action, in declaration order. */
  actions(): readonly ActionEntry[] {
    return this.#actions.entries()
  }

  /** Every declared error code, in declaration order. */
  errors(): readonly CatalogueEntry[] {
    return this.#errors.entries()
  }

  /** Every declared setting, in declaration order. */
  settings(): readonly SettingEntry[] {
    return this.#settings.entries()
  }

  /** The service that declared an action (and alone performs it), if any did. */
  actionOwner(name: string): string | undefined {
    return this.#actions.ownerOf(name)
  }

  /** Every rename of a declared event: the event log applies them to what it stored before. */
  renamedEvents(): readonly { readonly from: string; readonly to: string }[] {
    return this.#contracts.renamedEvents()
  }

  isDeclaredCommand(name: string): boolean {
    return this.#contracts.isDeclaredCommand(name)
  }

  /** A command's payload as its schema reads it: an undeclared command or a payload that does not fit is a 4xx-class SmError. */
  checkCommand(name: string, payload: unknown): unknown {
    return this.#contracts.checkCommand(name, payload)
  }

  /**
   * A declared event's payload as its schema reads it, a hook's (`before_x`, `after_x`) by its
   * action's; an undeclared name passes (custom events are the plugins').
   */
  checkEvent(name: string, payload: unknown): unknown {
    return this.#contracts.checkEvent(name, payload, (action) => this.#actions.payloadOf(action))
  }

  checkReply(name: string, reply: unknown): unknown {
    return this.#contracts.checkReply(name, reply)
  }

  /** Refuses an emit by a sender that does not own the event (ContractCatalogue.assertMayEmit). */
  assertMayEmit(namespace: string | undefined, name: string): void {
    this.#contracts.assertMayEmit(namespace, name, (action) => this.#actions.ownerOf(action))
  }
}
