/** The Electron preload exposes the API as `window.stride`; in a browser it is absent. */
import type { StrideApi } from '../../shared/api'

declare global {
  interface Window {
    stride?: StrideApi
  }
}

export {}
