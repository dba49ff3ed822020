/**
 * A game's console line as a terminal would show it, as plain text: what `server send` replies,
 * `server logs`, the live console and the profiles' line matchers see. The console log file keeps
 * the raw bytes.
 *
 * Games on a pipe still write for a terminal: Node's readline moves to column 1 and clears the
 * line before each message (`\x1b[1G\x1b[2K`) and leaves its `> ` prompt in front of the next
 * one, JLine switches terminal modes and erases its prompt with `\r\x1b[K`, loggers colour their
 * levels (`\x1b[0;32m`). The line is replayed on one row: text overwrites from the cursor;
 * carriage return, backspace, cursor left/right/column and erase-in-line/display move or clear;
 * every other escape sequence (CSI, OSC, DCS and other string controls, two-byte escapes) and
 * control character but tab is dropped. Then a leading prompt (`> `, possibly repeated) goes.
 */
export function cleanConsoleLine(raw: string): string {
  if (!CONTROL.test(raw)) return withoutPrompt(raw)
  const row = new Row()
  let from = 0
  for (const match of raw.matchAll(ESCAPE)) {
    row.write(raw.slice(from, match.index))
    from = match.index + match[0].length
    row.control(match)
  }
  row.write(raw.slice(from))
  return withoutPrompt(row.text())
}

/** Any C0 control but tab, DEL, or a C1 control: a line without one is shown as it is. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/

/**
 * CSI (7-bit `ESC [` or 8-bit U+009B: parameters, intermediates, final byte); OSC, DCS, SOS, PM
 * and APC strings up to BEL or ST (or the line's end); any other escape (`ESC =`, `ESC (B`); a
 * lone ESC; any other control character but tab.
 */
const ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  /(?:\x1b\[|\u009b)([0-?]*)[ -/]*([@-~])|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\|$)|\x1b[ -/]*[0-~]|\x1b|[\x00-\x08\x0a-\x1f\x7f-\x9f]/g

/** A console prompt at the start: `> `, maybe several (a prompt per command nobody answered), or `>` alone. */
const PROMPT = /^(?:>(?: |$))+/

function withoutPrompt(line: string): string {
  return line.replace(PROMPT, '')
}

/** One terminal row: characters by column, and the cursor. */
class Row {
  #cells: string[] = []
  #column = 0

  write(text: string): void {
    for (const character of text) {
      while (this.#cells.length < this.#column) this.#cells.push(' ')
      this.#cells[this.#column++] = character
    }
  }

  control([sequence, parameters, final]: RegExpMatchArray): void {
    if (sequence === '\r') this.#column = 0
    else if (sequence === '\b') this.#column = Math.max(0, this.#column - 1)
    // A private or unusual CSI (`?2004h`, `>c`) and colours (`m`) change nothing on the row.
    if (final === undefined || !/^[\d;]*$/.test(parameters ?? '')) return
    const n = Number.parseInt(parameters ?? '', 10)
    const count = Number.isNaN(n) || n === 0 ? 1 : n
    if (final === 'G' || final === '`') this.#column = count - 1
    else if (final === 'C') this.#column += count
    else if (final === 'D') this.#column = Math.max(0, this.#column - count)
    else if (final === 'H' || final === 'f') this.#column = Math.max(1, Number(parameters?.split(';')[1]) || 1) - 1
    else if (final === 'K' || final === 'J') this.#erase(Number.isNaN(n) ? 0 : n)
  }

  /** Erase in line (or display, on this one row): 0 from the cursor on, 1 up to it, 2 and 3 all. */
  #erase(mode: number): void {
    if (mode === 0) this.#cells.length = Math.min(this.#cells.length, this.#column)
    else if (mode === 1) this.#cells.fill(' ', 0, Math.min(this.#cells.length, this.#column + 1))
    else this.#cells = []
  }

  /** What the row shows; the blanks a shorter overwrite or an erase left at its end are not text. */
  text(): string {
    return this.#cells.join('').trimEnd()
  }
}
