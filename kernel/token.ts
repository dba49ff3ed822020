/**
 * An explicit injection token carrying the type of what it resolves to. A leaf of its own, not in
 * registry.ts: contracts declare tokens, and importing one must not load tsyringe into every
 * process and plugin thread that reads a contract.
 */
export type Token<T> = symbol & { readonly __type?: T }

export function createToken<T>(description: string): Token<T> {
  return Symbol(description) as Token<T>
}
