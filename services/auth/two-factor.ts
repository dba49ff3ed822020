import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import { type BusScope, SmError } from '../../kernel'
import { FailureLimiter } from './rate-limit'
import type { StoredUser } from './users-projection'

/**
 * Two-factor sign-in (TOTP, RFC 6238: SHA-1, 6 digits, 30 s, the parameters every authenticator
 * app reads from an otpauth:// URI) with one-time recovery codes. otpauth computes and checks the
 * codes and uqr draws the QR code; both are loaded on first use, so a command that never meets a
 * second factor does not pay their load.
 */
const otpauth = (): typeof import('otpauth') => require('otpauth')

/** How many steps of 30 s before and after now a code is still taken (clocks drift; a code is typed late). */
const WINDOW = 1
const PERIOD_S = 30
const RECOVERY_CODES = 10
/** Recovery codes are read aloud and typed: no 0/O, 1/I/L. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'

/** What the vault keeps of an account's second factor (`auth.totp:<name>`). */
export interface SecondFactor {
  /** The shared secret, base32. */
  readonly secret: string
  /** SHA-256 digests (base64url) of the recovery codes not spent yet. */
  readonly recovery: readonly string[]
  /** The last time step a code was taken for: a code is taken once (RFC 6238, section 5.2). */
  readonly lastStep: number
}

/** A new random secret (160 bits, as RFC 4226 recommends), base32. */
export function newSecret(): string {
  return new (otpauth().Secret)({ size: 20 }).base32
}

function totp(secret: string, account = '') {
  const { TOTP, Secret } = otpauth()
  return new TOTP({
    issuer: 'server-manager',
    label: account,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_S,
    secret: Secret.fromBase32(secret),
  })
}

/** The otpauth:// URI an authenticator app reads (from the QR code) for `account`. */
export function enrolmentUri(secret: string, account: string): string {
  return totp(secret, account).toString()
}

/** The URI as a QR code, an SVG document (black on white, with its quiet zone). */
export function qrSvg(uri: string): string {
  const { renderSVG } = require('uqr') as typeof import('uqr')
  return renderSVG(uri, { border: 2 })
}

/**
 * The time step `code` is valid for (within WINDOW steps of `now`) when it is later than
 * `lastStep`, else undefined: a code is taken once, and never one older than the last one taken.
 */
export function acceptedStep(secret: string, code: string, lastStep: number, now = Date.now()): number | undefined {
  const token = code.replace(/\s+/g, '')
  if (!/^\d{6}$/.test(token)) return undefined
  const delta = totp(secret).validate({ token, timestamp: now, window: WINDOW })
  if (delta === null) return undefined
  const step = Math.floor(now / 1000 / PERIOD_S) + delta
  return step > lastStep ? step : undefined
}

/** Ten new recovery codes (`xxxxx-xxxxx`, about 50 bits each) and their digests, for the vault. */
export function newRecoveryCodes(): { codes: string[]; digests: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)])
    return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`
  })
  return { codes, digests: codes.map(recoveryDigest) }
}

/** A recovery code's digest, whatever its case, spaces or dash as typed. */
function recoveryDigest(code: string): string {
  return createHash('sha256')
    .update(code.toLowerCase().replace(/[\s-]+/g, ''))
    .digest('base64url')
}

/** The index in `digests` of the recovery code typed, or -1. */
export function recoveryIndex(digests: readonly string[], code: string): number {
  const typed = Buffer.from(recoveryDigest(code), 'base64url')
  return digests.findIndex((digest) => {
    const known = Buffer.from(digest, 'base64url')
    return known.length === typed.length && timingSafeEqual(known, typed)
  })
}

/** The vault's text of a second factor, and back (undefined for none or unreadable). */
export function storedFactor(factor: SecondFactor): string {
  return JSON.stringify(factor)
}

export function readFactor(text: string | undefined): SecondFactor | undefined {
  if (!text) return undefined
  try {
    const value = JSON.parse(text) as Partial<SecondFactor>
    if (typeof value.secret !== 'string' || !Array.isArray(value.recovery)) return undefined
    return { secret: value.secret, recovery: value.recovery.map(String), lastStep: Number(value.lastStep) || 0 }
  } catch {
    return undefined
  }
}

const vaultKey = (username: string) => `auth.totp:${username.toLowerCase()}`
const pendingKey = (username: string) => `auth.totp_pending:${username.toLowerCase()}`

/** What the second factors need of the auth service: an account by name, its one-at-a-time account changes, and its sign-in limit. */
export interface FactorDeps {
  user(username: string): Promise<StoredUser>
  exclusive<T>(change: () => Promise<T>): Promise<T>
  signInLimit(): Promise<{ max: number; windowMs: number }>
}

/**
 * The accounts' second factors: enrolment (begun, then confirmed with a code), the check at
 * sign-in, turning off (with a code) and an admin's reset. Secrets and recovery codes' digests
 * live in the vault; whether an account has one is a fact (`auth:two_factor_enabled`/`_disabled`).
 */
export class SecondFactors {
  readonly #deps: FactorDeps
  readonly #bus: BusScope
  /**
   * Codes tried against each account, from anywhere (auth.login_max_failures per
   * auth.login_window_s): the right password does not lift it, else a guessed password would buy
   * a fresh round of code guesses from every client. A code that passes clears it.
   */
  readonly #tries = new FailureLimiter()

  constructor(bus: BusScope, deps: FactorDeps) {
    this.#bus = bus
    this.#deps = deps
  }

  /** Counts a code about to be checked against `user`'s; SM_ERR_AUTH_RATE_LIMITED at the limit. */
  async #count(user: StoredUser): Promise<void> {
    const { max, windowMs } = await this.#deps.signInLimit()
    const refused = this.#tries.reserve([{ key: user.id, max }], windowMs)
    if (refused) throw new SmError('SM_ERR_AUTH_RATE_LIMITED', { seconds: refused.seconds })
  }

  /**
   * Spends `code` (run in the account changes' turn, counted first): a wrong one is recorded as
   * a failed sign-in (`code: true`) and refused with `wrong()`; a right one clears the count.
   */
  async #prove(user: StoredUser, code: string, wrong: () => SmError, client?: string): Promise<void> {
    if (!(await this.#spend(user, code))) {
      await this.#bus.emit('auth:sign_in_failed', { username: user.username, client, code: true })
      throw wrong()
    }
    this.#tries.clear(user.id)
  }

  async #vault(name: string): Promise<string | undefined> {
    return this.#bus.request('events:vault_get', { name })
  }

  async #store(name: string, value: string | undefined): Promise<void> {
    await this.#bus.request('events:vault_set', { name, value })
  }

  async status(username: string): Promise<{ enabled: boolean; pending: boolean; recoveryCodesLeft: number }> {
    const user = await this.#deps.user(username)
    const factor = user.twoFactor ? readFactor(await this.#vault(vaultKey(user.username))) : undefined
    return {
      enabled: user.twoFactor,
      pending: !user.twoFactor && (await this.#vault(pendingKey(user.username))) !== undefined,
      recoveryCodesLeft: factor?.recovery.length ?? 0,
    }
  }

  /** A new secret for `username`'s app, pending until a code from it confirms it (a second begin replaces it). */
  async begin(username: string): Promise<{ secret: string; uri: string; qrSvg: string }> {
    const user = await this.#deps.user(username)
    if (user.twoFactor) throw new SmError('SM_ERR_AUTH_TWO_FACTOR_ON', { username: user.username })
    const secret = newSecret()
    await this.#store(pendingKey(user.username), secret)
    const uri = enrolmentUri(secret, user.username)
    return { secret, uri, qrSvg: qrSvg(uri) }
  }

  /** Turns the pending secret on with a code from it; the recovery codes, shown this once. */
  confirm(username: string, code: string): Promise<{ recoveryCodes: string[] }> {
    return this.#deps.exclusive(async () => {
      const user = await this.#deps.user(username)
      if (user.twoFactor) throw new SmError('SM_ERR_AUTH_TWO_FACTOR_ON', { username: user.username })
      const secret = await this.#vault(pendingKey(user.username))
      if (!secret) throw new SmError('SM_ERR_AUTH_TWO_FACTOR_OFF', { username: user.username, pending: true })
      const step = acceptedStep(secret, String(code ?? ''), 0)
      if (step === undefined) throw new SmError('SM_ERR_AUTH_CURRENT_CODE', { action: 'turn two-factor sign-in on' })
      const { codes, digests } = newRecoveryCodes()
      // The secret first: a crash before the fact leaves it unused (two-factor stays off), never on without a secret.
      await this.#store(vaultKey(user.username), storedFactor({ secret, recovery: digests, lastStep: step }))
      await this.#store(pendingKey(user.username), undefined)
      await this.#bus.emit('auth:two_factor_enabled', { username: user.username })
      return { recoveryCodes: codes }
    })
  }

  /** At sign-in, from `client`: `code` must be `user`'s current code or one of its recovery codes (either is spent), else SM_ERR_AUTH_CODE_INVALID. */
  async signIn(user: StoredUser, code: string, client: string | undefined): Promise<void> {
    await this.#count(user)
    await this.#deps.exclusive(() => this.#prove(user, code, () => new SmError('SM_ERR_AUTH_CODE_INVALID', {}), client))
  }

  async #spend(user: StoredUser, code: string): Promise<boolean> {
    const factor = readFactor(await this.#vault(vaultKey(user.username)))
    if (!factor) return false
    const step = acceptedStep(factor.secret, code, factor.lastStep)
    if (step !== undefined) {
      await this.#store(vaultKey(user.username), storedFactor({ ...factor, lastStep: step }))
      return true
    }
    const index = recoveryIndex(factor.recovery, code)
    if (index < 0) return false
    const recovery = factor.recovery.filter((_, i) => i !== index)
    await this.#store(vaultKey(user.username), storedFactor({ ...factor, recovery }))
    await this.#bus.emit('auth:recovery_code_used', { username: user.username, remaining: recovery.length })
    return true
  }

  /** The user turns their own second factor off, proving it with a code (within the account's code limit). */
  async disable(username: string, code: string): Promise<StoredUser> {
    const user = await this.#deps.user(username)
    if (!user.twoFactor) throw new SmError('SM_ERR_AUTH_TWO_FACTOR_OFF', { username: user.username, pending: false })
    await this.#count(user)
    return this.#deps.exclusive(async () => {
      const wrong = () => new SmError('SM_ERR_AUTH_CURRENT_CODE', { action: 'turn two-factor sign-in off' })
      await this.#prove(user, String(code ?? ''), wrong)
      return this.#off(user, false)
    })
  }

  /**
   * An admin (`by`, signed in) or the local CLI turns `username`'s second factor off; one's own
   * goes off only with a code (disable), so a stolen session cannot quietly drop it.
   */
  reset(username: string, by?: string): Promise<StoredUser> {
    return this.#deps.exclusive(async () => {
      const user = await this.#deps.user(username)
      if (by !== undefined && by.toLowerCase() === user.username.toLowerCase())
        throw new SmError('SM_ERR_AUTH_OWN_TWO_FACTOR', {})
      if (!user.twoFactor) throw new SmError('SM_ERR_AUTH_TWO_FACTOR_OFF', { username: user.username, pending: false })
      return this.#off(user, true)
    })
  }

  async #off(user: StoredUser, reset: boolean): Promise<StoredUser> {
    // The fact first: a crash before the secret goes leaves it unused (the fact says off).
    await this.#bus.emit('auth:two_factor_disabled', { username: user.username, reset })
    await this.forget(user.username)
    return this.#deps.user(user.username)
  }

  /** Drops what the vault holds of `username`'s second factor (a deleted account). */
  async forget(username: string): Promise<void> {
    await this.#store(vaultKey(username), undefined)
    await this.#store(pendingKey(username), undefined)
  }
}
