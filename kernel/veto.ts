/** What a `before_*` listener returns to stop the action. */
export interface Veto {
  readonly cancel: true
  readonly reason?: string
  /** Who vetoed, when the listener passes on another's veto (a host agent, the manager's plugin's). */
  readonly by?: string
}

export function isVeto(value: unknown): value is Veto {
  return (value as Veto | null)?.cancel === true
}
