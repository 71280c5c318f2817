/** The one place the bridges get their backend from. */
import type { StrideBackend } from './backend'
import { createStrideService } from './stride-service'

export function createBackend(): StrideBackend {
  return createStrideService()
}
