import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * Password hashes: scrypt (node:crypto, on the libuv pool) with OWASP's minimum cost
 * (N=2^17, r=8, p=1), a 16-byte random salt, and the parameters stored with the hash
 * (`scrypt$17$8$1$<salt>$<hash>`), so the cost can rise later without breaking old hashes.
 */
const R = 8
const P = 1
const KEY_LENGTH = 32
/** scrypt needs 128·N·r bytes; Node's default limit (32 MiB) is below that for N=2^17. */
const MAX_MEM = 256 * 1024 * 1024

/**
 * The cost of new hashes: 17, unless a test suite lowers it (SM_TEST_PASSWORD_COST, 10 to 17):
 * the suite signs in hundreds of times, each a real scrypt at its cost. Existing hashes keep the
 * cost they were made with.
 */
function cost(given: string | undefined): number {
  const value = Number(given)
  return Number.isInteger(value) && value >= 10 && value <= 17 ? value : 17
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N: 2 ** logN, r, p, maxmem: MAX_MEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const logN = cost(process.env.SM_TEST_PASSWORD_COST)
  const key = await derive(password, salt, logN, R, P)
  return ['scrypt', logN, R, P, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Whether `password` matches `stored`; an unreadable stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p))
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** A hash that matches nothing, checked when the user does not exist so both paths take as long. */
let decoy: Promise<string> | undefined
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'))
  return decoy
}
