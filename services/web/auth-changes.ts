import type { BusScope } from '../../kernel'
import { ACCESS_FACTS, isAccessFact } from '../auth/contract'

/** An auth.* setting: who may use a session follows them too (auth.require_two_factor_admins). */
const authSetting = (key: unknown) => typeof key === 'string' && key.startsWith('auth.')

/**
 * Calls `changed` whenever who may do what may have changed: a user, token, session or grant
 * fact, a server's removal (its grants go), or an auth.* setting, recorded by this process (heard as it is recorded) or another
 * (`events:appended`). What remembers identities forgets them then.
 */
export function onAuthChange(bus: BusScope, changed: () => void): void {
  for (const fact of ACCESS_FACTS) bus.on(fact, changed)
  bus.on('after_setting_update', ({ key }) => {
    if (authSetting(key)) changed()
  })
  bus.on('events:appended', ({ events }) => {
    const changes = (e: (typeof events)[number]) =>
      isAccessFact(e.type) || (e.type === 'after_setting_update' && authSetting((e.payload as { key?: unknown }).key))
    if (events.some(changes)) changed()
  })
}
