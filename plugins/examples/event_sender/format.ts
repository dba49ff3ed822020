/** Shapes an echoed payload; lives in its own module to show relative imports in a package plugin. */
export function echoOf(payload: Record<string, unknown>, sender: string): Record<string, unknown> {
  return { echoed: payload, from: sender, at: new Date().toISOString() }
}
