import type { WireError } from '../../kernel/errors'

/**
 * The bus bridge's messages: one JSON object per line. A client sends requests (answered by
 * the one handler of the command on the manager's bus) and subscriptions (events forwarded as
 * they are emitted); the same shapes can later ride a real broker between hosts.
 */
export type ClientMessage =
  | {
      readonly t: 'req'
      readonly id: number
      readonly command: string
      readonly payload: unknown
      readonly actor: string
    }
  | { readonly t: 'sub'; readonly id: number; readonly event: string }
  | { readonly t: 'unsub'; readonly id: number }

export type ServerMessage =
  | { readonly t: 'res'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly t: 'res'; readonly id: number; readonly ok: false; readonly error: WireError }
  | { readonly t: 'evt'; readonly sub: number; readonly payload: unknown; readonly meta: EventFrameMeta }

export interface EventFrameMeta {
  readonly event: string
  readonly actor: string
  readonly seq: number | undefined
}
