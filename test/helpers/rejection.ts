import { expect } from 'chai'
import { SmError } from '../../kernel'

/** The SmError a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<SmError> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  )
  expect(error).to.be.instanceOf(SmError)
  return error as SmError
}
