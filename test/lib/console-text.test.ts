import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cleanConsoleLine } from '../../lib/console-text'
import { lastConsoleLines } from '../../lib/log-tail'
import { tempDir } from '../helpers/temp-dir'

/**
 * Lines as real programs wrote them to a pipe (a trailing `\r` is already gone: the log tail
 * takes it off a CRLF line end). Captured here unless a source is named.
 */
describe('lib/console-text: console lines as plain text', () => {
  it("cleans Node readline's output (flying-squid's console, and a readline terminal forced on a pipe)", () => {
    // flying-squid 1.x (src/lib/plugins/log.js): rl.prompt(true), then readline.cursorTo(stdout, 0) before each message.
    expect(cleanConsoleLine('> \x1b[1G[INFO]: Server listening on port 25565')).to.equal(
      '[INFO]: Server listening on port 25565',
    )
    expect(cleanConsoleLine('> ')).to.equal('')
    // readline with terminal: true: the prompt redrawn (cursorTo 0, clearScreenDown) with the typed command...
    expect(cleanConsoleLine('\x1b[1G\x1b[0J> \x1b[3Glist')).to.equal('list')
    // ...then a message after cursorTo(0) and clearLine(0), its level coloured.
    expect(
      cleanConsoleLine('\x1b[1G\x1b[2K\x1b[0;32m[12:00:00 INFO]\x1b[0m: There are 0 of a max of 20 players online:'),
    ).to.equal('[12:00:00 INFO]: There are 0 of a max of 20 players online:')
  })

  it('cleans JLine 3 output (dumb and xterm terminals on pipes, as Java servers print)', () => {
    // JLine 3.26.3, dumb terminal: printAbove while reading leaves the prompt in front.
    expect(cleanConsoleLine('> [12:00:01 INFO]: got list')).to.equal('[12:00:01 INFO]: got list')
    // xterm-256color on pipes: keypad and bracketed-paste modes, the prompt erased by \r\x1b[K before a message.
    expect(
      cleanConsoleLine('\x1b[?1h\x1b=\x1b[?2004h> \r\x1b[K[12:00:00 INFO]: Done (3.21s)! For help, type "help"'),
    ).to.equal('[12:00:00 INFO]: Done (3.21s)! For help, type "help"')
    // The typed command's echo (its line ended \r\r: one \r is left), and the modes switched back.
    expect(cleanConsoleLine('> list\r')).to.equal('list')
    expect(cleanConsoleLine('\x1b[?1l\x1b>\x1b[?1000l\x1b[?2004l[12:00:01 INFO]: got list')).to.equal(
      '[12:00:01 INFO]: got list',
    )
  })

  it('replays line editing, and drops colours, titles and stray control characters', () => {
    // Ruby's Reline on a pipe (ruby/reline#716): each typed character erased with backspace and \e[K.
    expect(cleanConsoleLine('\x1b[?2004hprompt>a\b\x1b[Kb\b\x1b[Kc')).to.equal('prompt>c')
    // Pumpkin's log (Pumpkin-MC/Pumpkin#1051): 256-colour codes around a message.
    expect(cleanConsoleLine('2025-07-09 20:07:57 [INFO] (17) \x1b[93mmiasmus left the game\x1b[0m')).to.equal(
      '2025-07-09 20:07:57 [INFO] (17) miasmus left the game',
    )
    expect(cleanConsoleLine('\x1b]0;Minecraft 1.21 server\x07Starting minecraft server')).to.equal(
      'Starting minecraft server',
    )
    expect(cleanConsoleLine('\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\ text')).to.equal('link text')
    expect(cleanConsoleLine('\x07\x00ding\x7f\u009b31mred')).to.equal('dingred')
    expect(cleanConsoleLine('50%\r60%\r100%')).to.equal('100%')
    expect(cleanConsoleLine('abc\x1b[2D\x1b[KX')).to.equal('aX')
    expect(cleanConsoleLine('\x1b[5Gx')).to.equal('    x')
    expect(cleanConsoleLine('cut at the end \x1b')).to.equal('cut at the end')
  })

  it('leaves plain lines as they are, tabs and all; only a leading prompt goes', () => {
    for (const line of [
      '[2024-01-01 12:00:00:000 INFO] Server started.',
      'My, World/db/000005.ldb:65536, My, World/db/CURRENT:16',
      'a\tb  ',
      '>>> not a prompt',
      'x > y',
      '',
    ])
      expect(cleanConsoleLine(line)).to.equal(line)
    expect(cleanConsoleLine('> > > got hello')).to.equal('got hello')
    expect(cleanConsoleLine('>')).to.equal('')
  })
})

describe('lib/log-tail: the last lines of a console log as plain text', () => {
  it('counts only lines that show something at the end: a prompt waiting for input is not one', () => {
    const file = join(tempDir(), 'console.log')
    writeFileSync(file, '> \x1b[1G\x1b[2Kone\n> \x1b[1G\x1b[2K\x1b[32mtwo\x1b[0m\n> ')
    expect(lastConsoleLines(file, 1)).to.deep.equal(['two'])
    expect(lastConsoleLines(file, 5)).to.deep.equal(['one', 'two'])
    expect(lastConsoleLines(file, 0)).to.deep.equal([])
    writeFileSync(file, 'one\n\ntwo\n')
    expect(lastConsoleLines(file, 2)).to.deep.equal(['', 'two'])
  })
})
