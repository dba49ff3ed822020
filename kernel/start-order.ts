import { SmError } from './errors'
import type { Service } from './service'

/**
 * Orders services so each starts after everything it depends on (`dependsOn`, which must be
 * there) and after what it wants before it when present (`after`). Among services neither list
 * relates, the registration order is kept so boot is deterministic; nothing may rely on it.
 */
export function startOrder(services: readonly Service[]): Service[] {
  const byName = new Map(services.map((service) => [service.name, service]))
  const ordered: Service[] = []
  const state = new Map<string, 'visiting' | 'done'>()

  const visit = (service: Service, path: string[]): void => {
    const seen = state.get(service.name)
    if (seen === 'done') return
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(service.name)), service.name].join(' → ')
      throw new SmError('SM_ERR_KERNEL_SERVICE_CYCLE', { cycle })
    }
    state.set(service.name, 'visiting')
    for (const dependency of service.dependsOn ?? []) {
      const target = byName.get(dependency)
      if (!target) throw new SmError('SM_ERR_KERNEL_SERVICE_MISSING', { service: service.name, dependency })
      visit(target, [...path, service.name])
    }
    for (const name of service.after ?? []) {
      const target = byName.get(name)
      if (target) visit(target, [...path, service.name])
    }
    state.set(service.name, 'done')
    ordered.push(service)
  }

  for (const service of services) visit(service, [])
  return ordered
}
