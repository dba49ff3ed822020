import Module from 'node:module'

/** What the stand-in's module id ends in. */
export const STAND_IN = '(a stand-in until first used)'

/**
 * Makes zod's translations of its messages load when first used, not with zod. zod's index takes
 * every one of them (`z.locales`: 64 modules, about 40 ms of a process's start here, a tenth of a
 * cold command), while its messages are in English (`en`, which it loads itself, apart). Called
 * by the CLI's entry point (bin/run.js: every command, the manager included) and the tests'
 * setup, before anything loads zod; a plugin thread loads zod only for the web SDK, and keeps it.
 *
 * It puts in Node's module cache, under the file zod requires for them, a module whose exports
 * stand for the real ones: the first look at one (`z.locales.de()`, listing them) loads the real
 * module, and every look after that is answered from it. Where zod's files are not where it
 * looks (another version, another layout), it does nothing and zod loads as before.
 */
export function lazyZodLocales(): void {
  let path: string
  try {
    path = require.resolve('zod/v4/locales')
  } catch {
    return
  }
  if (require.cache[path]) return
  let real: Record<string | symbol, unknown> | undefined
  const load = (): Record<string | symbol, unknown> => {
    if (!real) {
      delete require.cache[path]
      real = require(path) as Record<string | symbol, unknown>
    }
    return real
  }
  const standIn = new Proxy(Object.create(null) as Record<string | symbol, unknown>, {
    // zod takes the module as it is (`__importStar` of an ES module's compiled form) without a look inside.
    get: (_, key) => (key === '__esModule' ? true : load()[key]),
    has: (_, key) => key in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(load(), key)
      // A proxy's target must hold what the proxy says is configurable=false; none here is.
      return descriptor ? { ...descriptor, configurable: true } : undefined
    },
  })
  // Named so that a list of what a process loaded can leave it out (test/helpers/run.ts): it loads nothing.
  const stand = new Module(`${path} ${STAND_IN}`, module)
  stand.filename = path
  stand.loaded = true
  stand.exports = standIn
  require.cache[path] = stand
}
