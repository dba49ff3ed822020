import { type BusScope, type CommandName, type SmError, toSmError, type WireError } from '../../kernel'

/** Who may ask over a bridge: a person at a CLI (`cli:<name>`), or a plugin's command run by one. */
export const BRIDGE_ACTOR = /^(cli|plugin):[A-Za-z0-9._@$-]{1,64}$/

export type Answer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: WireError }

/**
 * Answers one request that came over a bridge (the local socket or NATS). The boundary: an
 * undeclared command or a payload that does not fit its schema is the caller's error
 * (4xx-class, coded), and the handler sees only the declared fields.
 */
export async function answer(scope: BusScope, command: string, payload: unknown, actor: string): Promise<Answer> {
  try {
    const checked = scope.catalogue.checkCommand(command, payload ?? {})
    // Seam with the wire: the command is named at run time, so its payload's type is not known
    // statically; `checkCommand` has just parsed it with that command's declared schema.
    const value = await scope.request(command as CommandName, checked as never, { actor })
    return { ok: true, value }
  } catch (error) {
    return { ok: false, error: toSmError(error).toWire() }
  }
}

/** The answer as JSON; a reply that cannot be written as JSON becomes its coded error. */
export function answerJson(reply: Answer): string {
  try {
    return JSON.stringify(reply)
  } catch (error) {
    return JSON.stringify({ ok: false, error: (toSmError(error) as SmError).toWire() })
  }
}
