import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { exited, fakeJavaDir, gameDataDir, runState } from '../../helpers/game'
import { spawnCli } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { writeZip } from '../../helpers/zip'

/** The CLI's environment with the fake `java` first on PATH, as an admin's installed JDK would be. */
const withJava = (java: string) => ({ PATH: `${dirname(java)}:${process.env.PATH}` })

describe('services/servers: Minecraft Java Edition (issue 19, build item 2)', function () {
  this.timeout(90_000)

  it('installs a server jar, refuses to start it until an admin accepts the EULA, then runs it: starting until Done, commands, stop', async () => {
    const data = gameDataDir()
    // Done only once the test makes the gate: it is `starting` until then.
    const gate = join(tempDir(), 'ready')
    const { dir: template, java } = fakeJavaDir({ env: { FAKE_READY_GATE: gate } })
    const env = withJava(java)
    const jar = join(template, 'server.jar')
    const target = join(tempDir(), 'paper')
    const installed = await cliInOk(data, ['server', 'install', 'paper', '--from', jar, '--dir', target], env)
    expect(installed).to.match(/Server 'paper' installed/)
    // The EULA comes first, and the command says so (issue 34 item 7).
    expect(installed).to.include(
      "Its EULA comes first: read https://aka.ms/MinecraftEULA, then accept it with 'server-manager server eula paper --accept'.",
    )
    const info = JSON.parse(await cliInOk(data, ['server', 'info', 'paper', '--json']))
    expect(info).to.include({ profile: 'java', command: 'java', dir: target })
    expect(info.args).to.deep.equal(['-jar', 'server.jar', 'nogui'])

    // Never accepted by itself.
    const refused = await cliIn(data, ['server', 'start', 'paper'], env)
    expect(refused.code, refused.stderr).to.equal(78)
    expect(refused.stderr).to.match(
      /^Error \[SM_ERR_SERVER_EULA_REQUIRED\]: .*https:\/\/aka\.ms\/MinecraftEULA.*--accept/m,
    )
    const asked = await cliIn(data, ['server', 'eula', 'paper'])
    expect(asked.code).to.equal(78)
    expect(asked.stdout).to.match(/not accepted: read it at https:\/\/aka\.ms\/MinecraftEULA/)
    expect(await cliInOk(data, ['server', 'eula', 'paper', '--accept'])).to.match(/is accepted/)
    expect(readFileSync(join(target, 'eula.txt'), 'utf8')).to.match(/^eula=true$/m)
    expect(await cliInOk(data, ['events', '--limit', '3'])).to.match(/servers:eula_accepted +\{"serverName":"paper"\}/)

    // Its heap, from the server's own setting.
    await cliInOk(data, ['server', 'config', 'paper', 'memory_mb', '1024'])
    const start = spawnCli(data, ['server', 'start', 'paper'], env)
    const status = async () => JSON.parse((await cliIn(data, ['server', 'status', 'paper', '--json'])).stdout).status
    while ((await status()) !== 'starting') {}
    const game = runState(data, 'paper')?.game?.pid as number
    const argv = readFileSync(`/proc/${game}/cmdline`, 'utf8').split('\0')
    expect(argv).to.include.members(['-Xms1024M', '-Xmx1024M', '-jar', 'server.jar', 'nogui'])
    writeFileSync(gate, '')
    expect(await exited(start)).to.equal(0)
    expect(await status()).to.equal('running')
    expect(await cliInOk(data, ['server', 'send', 'paper', 'list'])).to.match(
      /There are 0 of a max of 20 players online:/,
    )
    expect(await cliInOk(data, ['server', 'stop', 'paper'])).to.match(/Server 'paper' stopped \(exit code 0\)/)
  })

  it('says what to install when Java is not there, before anything starts', async () => {
    const data = gameDataDir()
    const { dir } = fakeJavaDir({ eula: true })
    await cliInOk(data, ['server', 'add', 'vanilla', '--dir', dir, '--command', join(tempDir(), 'jdk', 'bin', 'java')])
    const r = await cliIn(data, ['server', 'start', 'vanilla'])
    expect(r.code, r.stderr).to.equal(69)
    expect(r.stderr).to.match(
      /^Error \[SM_ERR_SERVER_JAVA_MISSING\]: The server 'vanilla' needs Java.*Install a Java runtime/m,
    )
    expect(JSON.parse((await cliIn(data, ['server', 'status', 'vanilla', '--json'])).stdout).status).to.equal('stopped')
  })

  it('imports a zip of a Java world (level.dat at its top), and refuses one that holds no Java world, changing nothing', async () => {
    const data = gameDataDir()
    const { dir } = fakeJavaDir({ eula: true })
    await cliInOk(data, ['server', 'add', 'vanilla', '--dir', dir])
    const scratch = tempDir()
    await writeZip(join(scratch, 'notes.zip'), { 'readme.txt': 'not a world' })
    const refused = await cliIn(data, ['server', 'import', 'vanilla', join(scratch, 'notes.zip')])
    expect(refused.code, refused.stderr).to.not.equal(0)
    expect(refused.stderr).to.match(/\[SM_ERR_BACKUP_INVALID\].*holds no java world \(none of level\.dat at its top\)/)
    expect(readdirSync(dir)).to.not.include('world')

    await writeZip(join(scratch, 'castle.zip'), { 'level.dat': 'a castle', 'region/r.0.0.mca': 'chunks' })
    await cliInOk(data, ['server', 'import', 'vanilla', join(scratch, 'castle.zip')])
    expect(readFileSync(join(dir, 'world', 'level.dat'), 'utf8')).to.equal('a castle')
    expect(readFileSync(join(dir, 'world', 'region', 'r.0.0.mca'), 'utf8')).to.equal('chunks')
  })

  it('refuses an EULA to accept for a game that has none', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 'g', '--dir', tempDir(), '--command', 'true'])
    expect(await cliInOk(data, ['server', 'eula', 'g'])).to.match(/has no EULA/)
    const r = await cliIn(data, ['server', 'eula', 'g', '--accept'])
    expect(r.code).to.equal(64)
    expect(r.stderr).to.match(/SM_ERR_SERVER_PROFILE_INVALID.*no EULA to accept/)
  })
})
