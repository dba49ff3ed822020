import { expect } from 'chai'
import {
  FINAL,
  RUN_TRANSITIONS,
  type RunEvent,
  RunMachine,
  type RunPhase,
  STATUS_OF,
} from '../../../services/servers/supervisor/run-machine'
import { rejection } from '../../helpers/rejection'

const EVENTS = Object.keys(RUN_TRANSITIONS) as RunEvent[]
const PHASES = Object.keys(STATUS_OF) as RunPhase[]

/** A machine brought to `phase` by declared transitions only. */
function at(phase: RunPhase): RunMachine {
  const paths: Record<RunPhase, RunEvent[]> = {
    claiming: [],
    starting: ['launch'],
    running: ['launch-ready'],
    stopping: ['launch-ready', 'stop'],
    killing: ['launch-ready', 'kill'],
    restarting: ['launch-ready', 'crash-restart'],
    stopped: ['launch-ready', 'exit-clean'],
    crashed: ['launch-ready', 'crash'],
    error: ['launch-failed'],
  }
  const machine = new RunMachine('s1')
  for (const event of paths[phase]) machine.apply(event)
  expect(machine.phase).to.equal(phase)
  return machine
}

describe('services/servers: the supervisor run as a state machine', () => {
  it('makes every declared transition, from each phase it names, to its phase', () => {
    for (const event of EVENTS)
      for (const from of RUN_TRANSITIONS[event].from) {
        const machine = at(from)
        expect(machine.apply(event), `${event} from ${from}`).to.include({ from, to: RUN_TRANSITIONS[event].to })
        expect(machine.phase).to.equal(RUN_TRANSITIONS[event].to)
      }
  })

  it('refuses every other transition with a coded error, and stays where it was', async () => {
    let refused = 0
    for (const event of EVENTS)
      for (const phase of PHASES) {
        if ((RUN_TRANSITIONS[event].from as readonly RunPhase[]).includes(phase)) continue
        const machine = at(phase)
        expect(machine.can(event)).to.equal(false)
        const error = await rejection(Promise.resolve().then(() => machine.apply(event)))
        expect(error.code, `${event} from ${phase}`).to.equal('SM_ERR_SERVER_TRANSITION_ILLEGAL')
        expect(error.message).to.contain(`cannot ${event} while its run is ${phase}`)
        expect(machine.phase).to.equal(phase)
        refused++
      }
    expect(refused).to.be.greaterThan(0)
  })

  it('leaves no way out of a final phase, and reaches a final phase from every other one', () => {
    for (const phase of FINAL)
      expect(
        EVENTS.filter((e) => at(phase).can(e)),
        phase,
      ).to.deep.equal([])
    // Every phase but the final ones leads somewhere, and the final ones are reached.
    const reachable = new Set<RunPhase>(['claiming'])
    for (let grew = true; grew; ) {
      grew = false
      for (const event of EVENTS)
        for (const from of RUN_TRANSITIONS[event].from)
          if (reachable.has(from) && !reachable.has(RUN_TRANSITIONS[event].to)) {
            reachable.add(RUN_TRANSITIONS[event].to)
            grew = true
          }
    }
    expect([...reachable].sort()).to.deep.equal([...PHASES].sort())
    const ends = (phase: RunPhase, seen = new Set<RunPhase>()): boolean =>
      FINAL.includes(phase) ||
      EVENTS.some((e) => {
        const { from, to } = RUN_TRANSITIONS[e]
        if (!(from as readonly RunPhase[]).includes(phase) || seen.has(to)) return false
        seen.add(to)
        return ends(to, seen)
      })
    for (const phase of PHASES) expect(ends(phase), phase).to.equal(true)
  })
})
