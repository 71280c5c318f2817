/** One line under a cache form: this machine's caches as Cachegrind simulates them, and a button to use them. */
import type { HostHierarchy } from '../../shared/domain'

interface Props {
  host: HostHierarchy | null
  error: string | null
  /** Puts the host's levels in the form; absent until they are known. */
  onUse?: () => void
}

export function HostCachesLine({ host, error, onUse }: Props) {
  if (!host) return error ? <p className="muted small" data-testid="host-caches">This machine's caches are unknown ({error}); Cachegrind's defaults are shown.</p> : null
  return (
    <p className="muted small" data-testid="host-caches" title={host.note}>
      {host.source === 'defaults' || !host.asCachegrind ? host.note : `Host: ${host.summary} (as Cachegrind).`}{' '}
      {onUse && (
        <button type="button" className="link-button" onClick={onUse} data-testid="use-host-caches">
          Use these
        </button>
      )}
    </p>
  )
}
