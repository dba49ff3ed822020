import { expect } from 'chai'
import { hashPassword, verifyPassword } from '../../../services/auth/passwords'

describe('services/auth: password hashes', () => {
  const suite = process.env.SM_TEST_PASSWORD_COST
  afterEach(() => {
    process.env.SM_TEST_PASSWORD_COST = suite
  })

  it("are scrypt at OWASP's minimum cost (N=2^17, r=8, p=1) with a random salt, unless a test suite lowers it", async () => {
    delete process.env.SM_TEST_PASSWORD_COST
    const stored = await hashPassword('correct horse')
    expect(stored).to.match(/^scrypt\$17\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
    expect(await verifyPassword('correct horse', stored)).to.equal(true)
    expect(await verifyPassword('correct horse ', stored)).to.equal(false)
    expect(await hashPassword('correct horse')).not.to.equal(stored)
    // A lowered cost is bounded (10 to 17); anything else is the product's.
    for (const [given, logN] of [
      ['12', 12],
      ['9', 17],
      ['18', 17],
      ['x', 17],
    ] as const) {
      process.env.SM_TEST_PASSWORD_COST = given
      expect((await hashPassword('p')).split('$')[1]).to.equal(String(logN))
    }
    // A hash keeps the cost it was made with: one made at 12 still matches at 17.
    process.env.SM_TEST_PASSWORD_COST = '12'
    const cheap = await hashPassword('old one')
    delete process.env.SM_TEST_PASSWORD_COST
    expect(await verifyPassword('old one', cheap)).to.equal(true)
  })
})
