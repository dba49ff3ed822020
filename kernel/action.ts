import type { BusScope } from './bus-scope'
import { deepFreeze } from './deep-freeze'
import type { DispatchReport } from './dispatch-report'
import { isDiskFull, isSmError, reasonOf } from './errors'
import type { EventName, PayloadOf } from './maps'
import { isVeto } from './veto'

/** The `result` every `after_*` event carries. */
export interface ActionResult {
  readonly status: 'success' | 'error' | 'cancelled'
  readonly message?: string
  readonly [field: string]: unknown
}

export { isVeto, type Veto } from './veto'

export type ActionOutcome<T> =
  | {
      readonly status: 'success'
      readonly value: T
      readonly result: ActionResult
      /** The work was done but its fact could not be recorded (a full disk): why, for the caller to pass on. */
      readonly unrecorded?: string
    }
  | { readonly status: 'cancelled'; readonly by: string; readonly reason: string; readonly result: ActionResult }
  | { readonly status: 'error'; readonly error: unknown; readonly result: ActionResult }

type BeforeName = EventName & `before_${string}`
type AfterName = EventName & `after_${string}`

export interface ActionSpec<B extends BeforeName, A extends AfterName, T> {
  readonly before: B
  readonly after: A
  readonly payload: PayloadOf<B>
  /** Does the work; its value's fields (a plain object's) are merged into a successful result. */
  readonly perform: () => Promise<T>
  /** The success message. */
  readonly message?: (value: T) => string
  /**
   * The `after_*` fact is the work itself: the new state is a projection of the log (a setting's
   * value, a plugin's enabled flag) and `perform` changes nothing. A fact that cannot be recorded
   * (a full disk) then fails the action, which changed nothing, instead of answering `unrecorded`.
   */
  readonly factIsTheWork?: true
}

/**
 * Runs one action under the hook protocol: check the payload against the action's schema (one
 * that does not fit is SM_ERR_BUS_BAD_PAYLOAD, and nothing runs), emit `before_*` (any listener may veto with
 * `{ cancel: true, reason }`; in turn, in load order), perform it unless vetoed, then emit
 * `after_*` with the payload and a `result` whatever happened (success, error, cancelled), to its
 * listeners side by side (none can veto). The `after_*` emit is where a fact is
 * recorded, so the outcome is in the event log before any after-listener runs. Work that was
 * done but whose fact a full disk kept from the log is still a success, with `unrecorded` saying
 * why; where the fact is the work (`factIsTheWork`), a fact that was not recorded rejects.
 */
export async function performAction<B extends BeforeName, A extends AfterName, T>(
  bus: BusScope,
  spec: ActionSpec<B, A, T>,
): Promise<ActionOutcome<T>> {
  // Listeners may veto, never transform: they all see one frozen copy, which fits the action's schema.
  const payload = deepFreeze(structuredClone(spec.payload))
  bus.catalogue.checkEvent(spec.before, payload)
  // The round ends at the first veto: no hook after it acts on what will not happen (user plugins
  // are loaded before the shipped ones, so a user plugin's veto comes before the shipped
  // notifications warn players of a stop; a hook that ran before the veto did run).
  const before = await bus.emit(spec.before, payload, { untilVeto: true })
  const veto = findVeto(before)
  let outcome: ActionOutcome<T>
  if (veto) {
    const result = { status: 'cancelled', message: `Cancelled by ${veto.by}: ${veto.reason}` } as const
    outcome = { status: 'cancelled', ...veto, result }
  } else {
    try {
      const value = await spec.perform()
      const fields = value && typeof value === 'object' && !Array.isArray(value) ? value : {}
      const result: ActionResult = { ...fields, status: 'success', message: spec.message?.(value) }
      outcome = { status: 'success', value, result }
    } catch (error) {
      const result: ActionResult = {
        status: 'error',
        message: reasonOf(error),
        code: isSmError(error) ? error.code : undefined,
      }
      outcome = { status: 'error', error, result }
    }
  }
  try {
    await bus.emit(spec.after, deepFreeze({ ...(payload as object), result: outcome.result }) as PayloadOf<A>, {
      parallel: true,
    })
  } catch (error) {
    // Work that was done stays done: a failure here would invite a retry that does it twice.
    // Where the fact is the work, nothing was done: the failure is the answer.
    if (outcome.status !== 'success' || spec.factIsTheWork || !isDiskFull(error)) throw error
    return { ...outcome, unrecorded: reasonOf(error) }
  }
  return outcome
}

/**
 * Tells the hooks of something that already happened (a status change, a crash): `before_*`
 * runs, but a veto cannot undo it; `after_*` carries `result.status === 'success'` and records
 * the fact. Resolves to who tried to veto, for the caller to log. `actor`: whose doing it is (the
 * fact's actor, and the hooks'), not whoever's request happened to make the caller look.
 */
export async function reportObserved<B extends BeforeName, A extends AfterName>(
  bus: BusScope,
  spec: { readonly before: B; readonly after: A; readonly payload: PayloadOf<B>; readonly actor: string },
): Promise<{ vetoedBy: string | undefined }> {
  const payload = deepFreeze(structuredClone(spec.payload))
  bus.catalogue.checkEvent(spec.before, payload)
  const veto = findVeto(await bus.emit(spec.before, payload, { actor: spec.actor }))
  await bus.emit(spec.after, deepFreeze({ ...(payload as object), result: { status: 'success' } }) as PayloadOf<A>, {
    actor: spec.actor,
    parallel: true,
  })
  return { vetoedBy: veto?.by }
}

function findVeto(report: DispatchReport): { by: string; reason: string } | undefined {
  for (const { owner, value } of report.successes) {
    if (isVeto(value))
      return { by: typeof value.by === 'string' ? value.by : owner, reason: value.reason ?? 'no reason given' }
  }
  return undefined
}
