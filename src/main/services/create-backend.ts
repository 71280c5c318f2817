/** The one place the bridges get their backend from. */
import type { StrideBackend } from './backend'
import { createStrideService, type ServiceOptions } from './stride-service'

export function createBackend(options: ServiceOptions = {}): StrideBackend {
  return createStrideService(options)
}
