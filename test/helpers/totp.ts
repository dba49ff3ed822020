import { createHmac } from 'node:crypto'

/** RFC 4648 base32, as the enrolment shows the secret. */
export function base32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const char of text.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0')
  return Buffer.from(bits.match(/.{8}/g)?.map((byte) => Number.parseInt(byte, 2)) ?? [])
}

/**
 * RFC 6238's TOTP written out here (HMAC-SHA1, 30 s steps, dynamic truncation), not the
 * product's library: what any authenticator app shows `offsetS` seconds from now.
 */
export function totp(key: Buffer, offsetS = 0, digits = 6, at = Date.now()): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor((at / 1000 + offsetS) / 30)))
  const hmac = createHmac('sha1', key).update(counter).digest()
  const at4 = (hmac[19] as number) & 0xf
  const value = hmac.readUInt32BE(at4) & 0x7fffffff
  return String(value % 10 ** digits).padStart(digits, '0')
}

/** A 6-digit code that is none of those valid now (a step either side included). */
export function wrongCode(key: Buffer): string {
  const valid = new Set([-60, -30, 0, 30, 60].map((offset) => totp(key, offset)))
  let code = 0
  while (valid.has(String(code).padStart(6, '0'))) code++
  return String(code).padStart(6, '0')
}
