/**
 * The candidate nearest to `word` by edit distance, when it is near enough to be a likely typo
 * (at most a third of its length, at least 2 edits allowed). For "did you mean" suggestions.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution)
    }
    previous = current
  }
  return previous[b.length] as number
}
