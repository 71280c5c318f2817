/** The Electron preload exposes its message transport as `window.strideTransport`; in a browser it is absent. */
import type { StrideTransport } from '../../shared/api'

declare global {
  interface Window {
    strideTransport?: StrideTransport
  }
}

export {}
