import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'chai'
import { detectProfile, javaLaunch } from '../../../services/servers/detect'
import {
  BUILT_IN_PROFILES,
  consoleMessage,
  gameProfile,
  isChat,
  parseHotBackup,
  refusalIn,
} from '../../../services/servers/profiles'
import { consoleProfile } from '../../../services/servers/supervisor/profiles'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { exited, gameDataDir, nodeGameArgs, untilStatus } from '../../helpers/game'
import { spawnCli } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

const { bedrock, java, generic } = BUILT_IN_PROFILES

describe('services/servers: game profiles (issue 19, build item 1)', () => {
  describe('the console side, from real log lines', () => {
    it('takes the prefix off vanilla, Paper, Forge and Bedrock lines, and keeps other lines whole', () => {
      const forge = '[12:34:56] [Server thread/INFO] [minecraft/DedicatedServer]: Done (8.195s)! For help, type "help"'
      expect(consoleMessage(java, forge)).to.equal('Done (8.195s)! For help, type "help"')
      expect(consoleProfile(java).ready?.(forge)).to.equal(true)
      expect(
        consoleMessage(
          java,
          '[23Jun2024 12:34:56.789] [Server thread/INFO] [net.minecraft.server.MinecraftServer/]: Steve joined the game',
        ),
      ).to.equal('Steve joined the game')
      expect(consoleMessage(java, '[12:34:56] [Server thread/INFO]: Done (3.214s)! For help, type "help"')).to.equal(
        'Done (3.214s)! For help, type "help"',
      )
      expect(consoleMessage(java, '[09:00:01 INFO]: Steve joined the game')).to.equal('Steve joined the game')
      expect(consoleMessage(java, "[09:00:01] [Server thread/WARN]: Can't keep up!")).to.equal("Can't keep up!")
      expect(consoleMessage(bedrock, '[2022-07-17 02:32:53:104 INFO] Server started.')).to.equal('Server started.')
      expect(consoleMessage(bedrock, 'NO LOG FILE! - [INFO] Server started.')).to.equal('Server started.')
      expect(consoleMessage(java, 'a plain line')).to.equal('a plain line')
      expect(consoleMessage(generic, '[12:34:56] [Server thread/INFO]: x')).to.equal(
        '[12:34:56] [Server thread/INFO]: x',
      )
    })

    it('knows when each game is ready, and when the replies it knows are complete', () => {
      const javaConsole = consoleProfile(java)
      expect(javaConsole.ready?.('[12:34:56] [Server thread/INFO]: Done (1,5s)! For help, type "help"')).to.equal(true)
      expect(javaConsole.ready?.('[12:34:56] [Server thread/INFO]: Preparing spawn area: 83%')).to.equal(false)
      expect(consoleProfile(generic).ready).to.equal(undefined)
      expect(
        consoleProfile(
          gameProfile({ profile: 'generic', stopCommand: 'quit', worldDir: undefined, readyLine: '^Ready$' }),
        ).ready?.('Ready'),
      ).to.equal(true)
      // Java lists names on the reply's own line, Bedrock on the next one.
      const list = '[12:00:00] [Server thread/INFO]: There are 1 of a max of 20 players online: Steve'
      expect(javaConsole.replyDone('list', [list])).to.equal(true)
      const bedrockList = '[2024-01-01 00:00:00:000 INFO] There are 1/10 players online:'
      expect(consoleProfile(bedrock).replyDone('list', [bedrockList])).to.equal(false)
      expect(consoleProfile(bedrock).replyDone('list', [bedrockList, 'Steve'])).to.equal(true)
      expect(
        javaConsole.replyDone('save-all flush', [
          '[12:00:00] [Server thread/INFO]: Saving the game (this may take a moment!)',
        ]),
      ).to.equal(false)
      expect(javaConsole.replyDone('save-all flush', ['[12:00:00] [Server thread/INFO]: Saved the game'])).to.equal(
        true,
      )
      expect(javaConsole.replyDone('say hi', [])).to.equal(undefined)
    })
  })

  describe('refused commands', () => {
    it("tells a refusal by the profile's error lines, on the message with its prefix off (issue 19, build item 5)", () => {
      const javaReply = [
        '[12:00:00] [Server thread/INFO]: Unknown or incomplete command, see below for error',
        '[12:00:00] [Server thread/INFO]: nosuch<--[HERE]',
      ]
      expect(refusalIn(java, javaReply)).to.equal('Unknown or incomplete command, see below for error')
      expect(refusalIn(java, ['[12:00:00 INFO]: There are 0 of a max of 20 players online: '])).to.equal(undefined)
      const unknown =
        'Unknown command: nosuch. Please check that the command exists and that you have permission to use it.'
      expect(refusalIn(bedrock, [`[2024-01-01 00:00:00:000 INFO] ${unknown}`])).to.equal(unknown)
      expect(refusalIn(bedrock, ['[2024-01-01 00:00:00:000 INFO] There are 0/10 players online:', ''])).to.equal(
        undefined,
      )
      // A generic game knows no error lines until it is given some.
      expect(refusalIn(generic, [unknown])).to.equal(undefined)
      const own = gameProfile({
        profile: 'generic',
        stopCommand: 'quit',
        worldDir: undefined,
        errorLines: ['^error: '],
      })
      expect(refusalIn(own, ['ok', 'error: no such command'])).to.equal('error: no such command')
    })

    it("never takes a player's chat for a reply or an error, and a known reply that came for a refusal (issue 32, item 3)", () => {
      const chat = [
        '[12:00:00] [Server thread/INFO]: <Steve> Unknown or incomplete command, see below for error',
        '[12:00:00 INFO]: [Not Secure] <Alex> Unknown or incomplete command',
      ]
      for (const line of chat) {
        expect(isChat(java, line), line).to.equal(true)
        expect(consoleProfile(java).chat(line), line).to.equal(true)
      }
      expect(isChat(java, '[12:00:00] [Server thread/INFO]: [Server] hello')).to.equal(false)
      expect(isChat(java, '[12:00:00] [Server thread/INFO]: nosuch<--[HERE]')).to.equal(false)
      expect(isChat(bedrock, '[2024-01-01 00:00:00:000 INFO] <Steve Two> Unknown command: x')).to.equal(true)
      expect(refusalIn(java, chat)).to.equal(undefined)
      const list = '[12:00:00] [Server thread/INFO]: There are 0 of a max of 20 players online: '
      const unknown = '[12:00:00] [Server thread/INFO]: Unknown or incomplete command, see below for error'
      // The reply the profile knows for `list` came: the error line is another command's.
      expect(refusalIn(java, [unknown, list], 'list')).to.equal(undefined)
      expect(consoleProfile(java).acknowledged('list', [unknown, list])).to.equal(true)
      expect(refusalIn(java, [unknown], 'list')).to.equal('Unknown or incomplete command, see below for error')
      expect(refusalIn(java, [unknown, list], 'say hi')).to.equal('Unknown or incomplete command, see below for error')
      // A generic server's own chat line.
      const own = gameProfile({
        profile: 'generic',
        stopCommand: 'quit',
        worldDir: undefined,
        errorLines: ['^Unknown'],
        chatLine: '^\\w+: ',
      })
      expect(refusalIn(own, ['Steve: Unknown command', 'Said: hi'])).to.equal(undefined)
      expect(refusalIn(own, ['Unknown command: x'])).to.equal('Unknown command: x')
    })

    it('ends a reply awaited `until` a line only at that line or an error line, never when the console falls quiet', () => {
      const own = consoleProfile(
        gameProfile({ profile: 'generic', stopCommand: 'quit', worldDir: undefined, errorLines: ['^Unknown'] }),
      )
      expect(own.replyDone('save-all flush', [], '^World flushed')).to.equal(false)
      expect(own.replyDone('save-all flush', ['Flushing the world'], '^World flushed')).to.equal(false)
      expect(own.replyDone('save-all flush', ['Flushing the world', 'World flushed: x'], '^World flushed')).to.equal(
        true,
      )
      expect(own.replyDone('save-all flush', ['Unknown command'], '^World flushed')).to.equal(true)
      expect(own.replyDone('save-all flush', ['Flushing the world'])).to.equal(undefined)
    })
  })

  describe("a server's own fields over its profile's", () => {
    it('merges them, and parses hot-backup commands', () => {
      const own = gameProfile({
        profile: 'generic',
        stopCommand: 'quit',
        worldDir: 'maps/main',
        readyLine: '^Listening',
        sayCommand: 'broadcast {message}',
        configFiles: ['config/settings.json'],
        hotBackup: { off: ['save-off'], flush: ['save-all flush'], on: ['save-on'] },
      })
      expect(own).to.deep.include({
        name: 'generic',
        stopCommand: 'quit',
        readyLine: '^Listening',
        sayCommand: 'broadcast {message}',
        configFiles: ['config/settings.json'],
        world: { dir: 'maps/main' },
        hotBackup: { kind: 'commands', off: ['save-off'], flush: ['save-all flush'], on: ['save-on'] },
        worldArchive: 'zip',
      })
      expect(gameProfile({ profile: 'bedrock', stopCommand: 'stop', worldDir: undefined }).hotBackup).to.deep.equal({
        kind: 'bedrock',
      })
      expect(parseHotBackup('save-off; save-all flush, sync ;save-on')).to.deep.equal({
        off: ['save-off'],
        flush: ['save-all flush', 'sync'],
        on: ['save-on'],
      })
      expect(parseHotBackup('save-off;save-on')).to.be.a('string')
      expect(parseHotBackup('a;;c')).to.be.a('string')
    })

    it("takes the flush's done line from the server, else from its profile (issue 32, item 2)", () => {
      const commands = { off: ['save-off'], flush: ['save-all flush'], on: ['save-on'] }
      const base = { stopCommand: 'stop', worldDir: undefined }
      expect(java.hotBackup).to.deep.include({ kind: 'commands', done: '^Saved the game' })
      // A generic server's commands alone cannot tell when the flush ends.
      expect(gameProfile({ ...base, profile: 'generic', hotBackup: commands }).hotBackup).to.deep.equal({
        kind: 'commands',
        ...commands,
      })
      expect(
        gameProfile({ ...base, profile: 'generic', hotBackup: commands, hotBackupDone: '^World flushed' }).hotBackup,
      ).to.deep.equal({ kind: 'commands', ...commands, done: '^World flushed' })
      // A java server's own commands keep its game's wording; its own done line wins.
      const own = { off: ['save-off'], flush: ['save-all'], on: ['save-on'] }
      expect(gameProfile({ ...base, profile: 'java', hotBackup: own }).hotBackup).to.deep.equal({
        kind: 'commands',
        ...own,
        done: '^Saved the game',
      })
      expect(gameProfile({ ...base, profile: 'java', hotBackupDone: '^Saved' }).hotBackup).to.deep.include({
        flush: ['save-all flush'],
        done: '^Saved',
      })
      expect(gameProfile({ ...base, profile: 'bedrock' }).hotBackup).to.deep.equal({ kind: 'bedrock' })
    })
  })

  describe('how a Java Edition directory is run', () => {
    /** A directory holding `files` (empty), each a path with `/`. */
    const dirWith = (...files: string[]) => {
      const dir = tempDir()
      for (const file of files) {
        mkdirSync(join(dir, dirname(file)), { recursive: true })
        writeFileSync(join(dir, file), '')
      }
      return dir
    }

    it("runs a loader's launcher before the vanilla jar it loads, modern Forge and NeoForge by their argument files, and never an installer", () => {
      expect(javaLaunch(dirWith('server.jar'))).to.deep.equal(['-jar', 'server.jar', 'nogui'])
      expect(javaLaunch(dirWith('purpur-1.21.1-2329.jar'))).to.deep.equal(['-jar', 'purpur-1.21.1-2329.jar', 'nogui'])
      expect(javaLaunch(dirWith('fabric-server-launch.jar', 'server.jar'))).to.deep.equal([
        '-jar',
        'fabric-server-launch.jar',
        'nogui',
      ])
      expect(javaLaunch(dirWith('fabric-server-mc.1.21.1-loader.0.16.5-launcher.1.0.1.jar'))?.[1]).to.equal(
        'fabric-server-mc.1.21.1-loader.0.16.5-launcher.1.0.1.jar',
      )
      expect(
        javaLaunch(dirWith('forge-1.12.2-14.23.5.2859.jar', 'minecraft_server.1.12.2.jar', 'forge-installer.jar')),
      ).to.deep.equal(['-jar', 'forge-1.12.2-14.23.5.2859.jar', 'nogui'])
      expect(
        javaLaunch(
          dirWith(
            'run.sh',
            'user_jvm_args.txt',
            'forge-1.20.1-47.3.0-installer.jar',
            'libraries/net/minecraftforge/forge/1.20.1-47.2.0/unix_args.txt',
            'libraries/net/minecraftforge/forge/1.20.1-47.3.0/unix_args.txt',
          ),
        ),
      ).to.deep.equal([
        '@user_jvm_args.txt',
        '@libraries/net/minecraftforge/forge/1.20.1-47.3.0/unix_args.txt',
        'nogui',
      ])
      expect(javaLaunch(dirWith('libraries/net/neoforged/neoforge/21.1.77/unix_args.txt'))).to.deep.equal([
        '@libraries/net/neoforged/neoforge/21.1.77/unix_args.txt',
        'nogui',
      ])
      expect(javaLaunch(dirWith('forge-1.20.1-47.3.0-installer.jar'))).to.equal(undefined)
      expect(javaLaunch(dirWith('a.jar', 'b.jar'))).to.equal(undefined)
      expect(detectProfile(dirWith('libraries/net/neoforged/neoforge/21.1.77/unix_args.txt'))).to.equal('java')
      expect(detectProfile(dirWith('run.sh'))).to.equal('generic')
    })
  })

  describe('server add', function () {
    // Each case is a CLI run of its own.
    this.timeout(90_000)

    it('detects a Java Edition directory by its server jar, and records a generic server given its profile fields', async () => {
      const data = gameDataDir()
      const paper = join(tempDir(), 'paper')
      mkdirSync(paper)
      writeFileSync(join(paper, 'paper-1.21.1-119.jar'), '')
      const added = JSON.parse(await cliInOk(data, ['server', 'add', 'paper', '--dir', paper, '--json']))
      expect(added).to.include({ profile: 'java', command: 'java', stopCommand: 'stop' })
      expect(added.args).to.deep.equal(['-jar', 'paper-1.21.1-119.jar', 'nogui'])
      writeFileSync(join(paper, 'server.properties'), 'level-name=survival\n')
      expect(JSON.parse(await cliInOk(data, ['server', 'info', 'paper', '--json'])).world).to.equal(
        join(paper, 'survival'),
      )

      const lobby = join(tempDir(), 'lobby')
      mkdirSync(lobby)
      const generic = JSON.parse(
        await cliInOk(data, [
          'server',
          'add',
          'lobby',
          '--dir',
          lobby,
          '--command',
          './run.sh',
          '--ready-line',
          '^Listening on',
          '--say-command',
          'broadcast {message}',
          '--config',
          'config/settings.json',
          '--hot-backup',
          'save-off;save-all flush;save-on',
          '--json',
        ]),
      )
      expect(generic).to.deep.include({
        profile: 'generic',
        readyLine: '^Listening on',
        sayCommand: 'broadcast {message}',
        configFiles: ['config/settings.json'],
        hotBackup: { off: ['save-off'], flush: ['save-all flush'], on: ['save-on'] },
      })
    })

    it('refuses unusable profile fields with a coded error, exit 64, and adds nothing', async () => {
      const data = gameDataDir()
      const dir = tempDir()
      const base = ['server', 'add', 'x', '--dir', dir, '--command', './run.sh']
      for (const [flags, field] of [
        [['--ready-line', '(unclosed'], 'ready line'],
        [['--hot-backup', 'save-off;save-on'], 'hot backup'],
        [['--config', '../outside.json'], 'config file'],
        [['--say-command', 'say hello'], 'say command'],
        [['--error-line', '['], 'error line'],
        [['--chat-line', '(unclosed'], 'chat line'],
        [['--hot-backup', 'save-off;save-all flush;save-on', '--hot-backup-done', '['], 'hot-backup done line'],
      ] as const) {
        const r = await cliIn(data, [...base, ...flags])
        expect(r.code, r.stderr).to.equal(64)
        expect(r.stderr).to.match(new RegExp(`^Error \\[SM_ERR_SERVER_PROFILE_INVALID\\]: The ${field} given`, 'm'))
      }
      const bad = await cliIn(data, [...base, '--profile', 'minecraft'])
      expect(bad.code).to.equal(64)
      expect(await cliInOk(data, ['server', 'list'])).not.to.match(/^x /m)
    })
  })

  describe('running means ready (build item 4)', function () {
    this.timeout(60_000)

    it('a generic server with a ready line is starting until it prints it, and `server start` waits for it', async () => {
      const data = gameDataDir()
      const dir = tempDir('sm-game-')
      // Ready only once told on its console: the test decides when, no timing involved.
      writeFileSync(
        join(dir, 'game.js'),
        [
          "const rl = require('node:readline').createInterface({ input: process.stdin })",
          "console.log('booting')",
          "rl.on('line', (line) => {",
          "  if (line === 'go') console.log('Listening on port 25565')",
          "  if (line === 'stop') process.exit(0)",
          '})',
        ].join('\n'),
      )
      await cliInOk(data, nodeGameArgs('g', dir, '--ready-line', '^Listening on'))
      const start = spawnCli(data, ['server', 'start', 'g'])
      // Its supervisor is up once the status says starting: a condition, looked at until it holds.
      // (Its exit code tells the state too; the JSON is printed either way.)
      const status = async () => JSON.parse((await cliIn(data, ['server', 'status', 'g', '--json'])).stdout).status
      while ((await status()) !== 'starting') {}
      await untilStatus(data, 'g', (e) => e.status === 'starting')
      await cliInOk(data, ['server', 'send', 'g', 'go'])
      expect(await exited(start)).to.equal(0)
      expect(await status()).to.equal('running')
      await cliInOk(data, ['server', 'stop', 'g'])
    })
  })

  describe('config backups hold the files a server declares', function () {
    this.timeout(60_000)

    it('a generic server with --config backs up that file, and one with none says there is nothing', async () => {
      const data = gameDataDir()
      const dir = tempDir('sm-game-')
      mkdirSync(join(dir, 'config'))
      writeFileSync(join(dir, 'config', 'settings.json'), '{"port": 25565}\n')
      await cliInOk(data, ['server', 'add', 'g', '--dir', dir, '--command', 'true', '--config', 'config/settings.json'])
      const made = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--type', 'config', '--json']))
      const archive = made.files[0].path ?? join(data, 'backups', 'g', made.files[0].file)
      expect(execFileSync('unzip', ['-Z1', archive]).toString().trim().split('\n')).to.deep.equal([
        'config/settings.json',
      ])
      await cliInOk(data, ['server', 'add', 'h', '--dir', tempDir(), '--command', 'true'])
      const none = await cliIn(data, ['server', 'backup', 'h', '--type', 'config'])
      expect(none.code, none.stderr).to.equal(66)
      expect(none.stderr).to.match(/SM_ERR_BACKUP_NOTHING/)
    })
  })
})
