import { writeFileSync } from 'node:fs'
import { createUser } from '@nats-io/nkeys'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { reasonOf, SmError } from '../../../../kernel/errors'
import { isSubjectToken } from '../../../../lib/nats-subjects'
import { ManagerCommand } from '../../manager-command'

/**
 * Makes a host agent's NATS identity: an nkey pair whose seed goes to the agent's host (shown
 * once, or written to a private file) and whose public key, with the permissions that keep the
 * agent to its own subjects, goes into the broker's configuration. Nothing is stored here: the
 * broker is what enforces it.
 */
export default class AgentCredentials extends ManagerCommand {
  static override summary = "Make a host agent's NATS credentials: its seed (shown once) and the broker's user entry"
  static override description =
    "Prints a new nkey seed for host NAME (keep it secret: it is the agent's password; --out writes it to a file of mode 0600 instead of the screen) and the user entry to add to nats-server's configuration (authorization { users = [ … ] }), which lets that agent publish and subscribe only sm.agent.NAME.> and answer the manager's requests. Reload the broker (nats-server --signal reload) after adding it. Run it again to replace a lost or leaked seed, and remove the old entry."
  static override examples = [
    '<%= config.bin %> agent credentials node2 --out node2.seed',
    '<%= config.bin %> agent credentials node2 --json',
  ]
  static override args = {
    name: Args.string({ description: "the host's name (letters, digits, '_', '-')", required: true }),
  }
  static override flags = {
    out: Flags.string({
      description: 'write the seed to this new file (mode 0600) instead of printing it',
      helpValue: '<file>',
    }),
    prefix: Flags.string({ description: "the manager's nats.prefix", default: 'sm', helpValue: '<prefix>' }),
    json: Flags.boolean({ description: 'print {name, publicKey, seed?, brokerUser} as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentCredentials)
    for (const [what, value] of [
      ['name', args.name],
      ['prefix', flags.prefix],
    ] as const)
      if (!isSubjectToken(value))
        throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', {
          name: what,
          reason: `'${value}' must be letters, digits, '_' and '-' (64 at most)`,
        })
    const pair = createUser()
    const seed = new TextDecoder().decode(pair.getSeed())
    const publicKey = pair.getPublicKey()
    if (flags.out) {
      try {
        writeFileSync(flags.out, `${seed}\n`, { mode: 0o600, flag: 'wx' })
      } catch (error) {
        throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', {
          name: '--out',
          reason: `cannot create '${flags.out}': ${reasonOf(error)}`,
        })
      }
    }
    const brokerUser = brokerEntry(args.name, publicKey, flags.prefix)
    if (flags.json) return this.printJson({ name: args.name, publicKey, ...(flags.out ? {} : { seed }), brokerUser })
    this.log(
      flags.out
        ? `The seed of host '${args.name}' is in ${flags.out} (mode 0600): copy it to that host.`
        : `Seed of host '${args.name}' (shown once; keep it secret, copy it to that host into a file of mode 0600):\n\n  ${seed}\n`,
    )
    this.log(
      'Add this user to the users list of nats-server.conf (authorization { users = [ … ] }), then reload it (nats-server --signal reload):\n',
    )
    this.log(`  ${JSON.stringify(brokerUser)}\n`)
    this.log(
      `On host '${args.name}': ${this.config.bin} agent start --nats nats://<broker>:4222 --name ${args.name} --credentials <seed file>`,
    )
  }
}

/** The broker's user entry for host `name`: its own subjects, its own inbox, answers to the manager. */
export function brokerEntry(name: string, publicKey: string, prefix = 'sm') {
  const own = `${prefix}.agent.${name}.>`
  return {
    nkey: publicKey,
    permissions: {
      publish: [own],
      subscribe: [own, `_INBOX.agent.${name}.>`],
      // Its answers to the manager may take as long as a large backup (the default is 2 minutes).
      allow_responses: { max: 1, expires: '1h' },
    },
  }
}
