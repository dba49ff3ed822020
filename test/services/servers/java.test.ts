import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'chai'
import { exited, fakeJavaDir, gameDataDir, runState } from '../../helpers/game'
import { cli, cliOk, spawnCli } from '../../helpers/run'
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
    const installed = await cliOk(data, ['server', 'install', 'paper', '--from', jar, '--dir', target], env)
    expect(installed).to.match(/Server 'paper' installed/)
    const info = JSON.parse(await cliOk(data, ['server', 'info', 'paper', '--json']))
    expect(info).to.include({ profile: 'java', command: 'java', dir: target })
    expect(info.args).to.deep.equal(['-jar', 'server.jar', 'nogui'])

    // Never accepted by itself.
    const refused = await cli(data, ['server', 'start', 'paper'], env)
    expect(refused.code, refused.stderr).to.equal(78)
    expect(refused.stderr).to.match(
      /^Error \[SM_ERR_SERVER_EULA_REQUIRED\]: .*https:\/\/aka\.ms\/MinecraftEULA.*--accept/m,
    )
    const asked = await cli(data, ['server', 'eula', 'paper'])
    expect(asked.code).to.equal(78)
    expect(asked.stdout).to.match(/not accepted: read it at https:\/\/aka\.ms\/MinecraftEULA/)
    expect(await cliOk(data, ['server', 'eula', 'paper', '--accept'])).to.match(/is accepted/)
    expect(readFileSync(join(target, 'eula.txt'), 'utf8')).to.match(/^eula=true$/m)
    expect(await cliOk(data, ['events', '--limit', '3'])).to.match(/servers:eula_accepted +\{"serverName":"paper"\}/)

    // Its heap, from the server's own setting.
    await cliOk(data, ['server', 'config', 'paper', 'memory_mb', '1024'])
    const start = spawnCli(data, ['server', 'start', 'paper'], env)
    const status = async () => JSON.parse((await cli(data, ['server', 'status', 'paper', '--json'])).stdout).status
    while ((await status()) !== 'starting') {}
    const game = runState(data, 'paper')?.game?.pid as number
    const argv = readFileSync(`/proc/${game}/cmdline`, 'utf8').split('\0')
    expect(argv).to.include.members(['-Xms1024M', '-Xmx1024M', '-jar', 'server.jar', 'nogui'])
    writeFileSync(gate, '')
    expect(await exited(start)).to.equal(0)
    expect(await status()).to.equal('running')
    expect(await cliOk(data, ['server', 'send', 'paper', 'list'])).to.match(
      /There are 0 of a max of 20 players online:/,
    )
    expect(await cliOk(data, ['server', 'stop', 'paper'])).to.match(/Server 'paper' stopped \(exit code 0\)/)
  })

  it('says what to install when Java is not there, before anything starts', async () => {
    const data = gameDataDir()
    const { dir } = fakeJavaDir({ eula: true })
    await cliOk(data, ['server', 'add', 'vanilla', '--dir', dir, '--command', join(tempDir(), 'jdk', 'bin', 'java')])
    const r = await cli(data, ['server', 'start', 'vanilla'])
    expect(r.code, r.stderr).to.equal(69)
    expect(r.stderr).to.match(
      /^Error \[SM_ERR_SERVER_JAVA_MISSING\]: The server 'vanilla' needs Java.*Install a Java runtime/m,
    )
    expect(JSON.parse((await cli(data, ['server', 'status', 'vanilla', '--json'])).stdout).status).to.equal('stopped')
  })

  it('imports a zip of a Java world (level.dat at its top), and refuses one that holds no Java world, changing nothing', async () => {
    const data = gameDataDir()
    const { dir } = fakeJavaDir({ eula: true })
    await cliOk(data, ['server', 'add', 'vanilla', '--dir', dir])
    const scratch = tempDir()
    await writeZip(join(scratch, 'notes.zip'), { 'readme.txt': 'not a world' })
    const refused = await cli(data, ['server', 'import', 'vanilla', join(scratch, 'notes.zip')])
    expect(refused.code, refused.stderr).to.not.equal(0)
    expect(refused.stderr).to.match(/\[SM_ERR_BACKUP_INVALID\].*holds no java world \(none of level\.dat at its top\)/)
    expect(readdirSync(dir)).to.not.include('world')

    await writeZip(join(scratch, 'castle.zip'), { 'level.dat': 'a castle', 'region/r.0.0.mca': 'chunks' })
    await cliOk(data, ['server', 'import', 'vanilla', join(scratch, 'castle.zip')])
    expect(readFileSync(join(dir, 'world', 'level.dat'), 'utf8')).to.equal('a castle')
    expect(readFileSync(join(dir, 'world', 'region', 'r.0.0.mca'), 'utf8')).to.equal('chunks')
  })

  it('refuses an EULA to accept for a game that has none', async () => {
    const data = gameDataDir()
    await cliOk(data, ['server', 'add', 'g', '--dir', tempDir(), '--command', 'true'])
    expect(await cliOk(data, ['server', 'eula', 'g'])).to.match(/has no EULA/)
    const r = await cli(data, ['server', 'eula', 'g', '--accept'])
    expect(r.code).to.equal(64)
    expect(r.stderr).to.match(/SM_ERR_SERVER_PROFILE_INVALID.*no EULA to accept/)
  })
})
