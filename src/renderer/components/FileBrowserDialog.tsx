/**
 * Picks a file: the desktop app's own dialog when it has one (chooseFile), else a browser of
 * the folders the user can read, served by the backend (listDirectory), with Home, the bundled
 * examples and the file system's root as places, and a field to type a path (checkPath: the
 * backend says in one line why it cannot be used). Folders first; only what the purpose can use is listed.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { DirectoryListing, FilePurpose } from '../../shared/domain'
import { errorMessage, stride } from '../state/stride'
import { Dialog } from './Dialog'

interface BrowserProps {
  purpose: FilePurpose
  onPick(path: string): void
  onClose(): void
}

export function FileBrowserDialog({ purpose, onPick, onClose }: BrowserProps) {
  const [listing, setListing] = useState<DirectoryListing | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [typed, setTyped] = useState('')
  // The latest folder asked for (an earlier listing arriving late is dropped), and whether the
  // user typed since: a listing fills the path field only if they did not (their text wins).
  const asked = useRef(0)
  const typedSince = useRef(false)
  const go = useCallback(
    (path: string | null) => {
      setError(null)
      const ask = ++asked.current
      typedSince.current = false
      stride()
        .listDirectory({ path, purpose })
        .then((l) => {
          if (ask !== asked.current) return
          setListing(l)
          if (!typedSince.current) setTyped(l.path)
        })
        .catch((e: unknown) => {
          if (ask === asked.current) setError(errorMessage(e))
        })
    },
    [purpose]
  )
  useEffect(() => go(null), [go])
  // A typed path: a folder is gone into, a usable file is chosen, anything else is refused in one line.
  const submitTyped = () => {
    const path = typed.trim()
    if (!path) return
    setError(null)
    stride()
      .checkPath({ path, purpose })
      .then((c) => (c.kind === 'dir' ? go(c.path) : onPick(c.path)))
      .catch((e: unknown) => setError(errorMessage(e)))
  }
  const what = purpose === 'program' ? 'programs (executable files)' : 'Stride sessions (.stride)'

  return (
    <Dialog title={purpose === 'program' ? 'Choose a program' : 'Open a session'} onClose={onClose} testId="file-browser" className="file-browser">
      <div
        className="file-browser-body"
        onKeyDown={(e) => {
          if (e.key === 'Backspace' && listing?.parent && !(e.target instanceof HTMLInputElement)) {
            e.preventDefault()
            go(listing.parent)
          }
        }}
      >
        <div className="file-browser-roots" role="group" aria-label="Places">
          {listing?.roots.map((r) => (
            <button key={r.path} type="button" className="button small" onClick={() => go(r.path)} data-testid={`browse-root-${r.label.toLowerCase()}`}>
              {r.label}
            </button>
          ))}
        </div>
        <div className="file-browser-path">
          <button type="button" className="button small" disabled={!listing?.parent} onClick={() => listing?.parent && go(listing.parent)} aria-label="Up one folder (Backspace)" data-testid="browse-up">
            ↑ Up
          </button>
          <code title={listing?.path}>{listing?.path ?? '…'}</code>
        </div>
        {/* Not a <form>: the picker opens inside other forms (the Launch dialog's), which its Enter must not submit. */}
        <div className="file-browser-typed" role="group" aria-label="Type a path">
          <label htmlFor="browse-typed-path" className="small">
            Path
          </label>
          <input
            id="browse-typed-path"
            value={typed}
            onChange={(e) => {
              typedSince.current = true
              setTyped(e.target.value)
            }}
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return
              e.preventDefault()
              e.stopPropagation()
              submitTyped()
            }}
            placeholder={purpose === 'program' ? '/usr/bin/true, or a folder' : '/path/to/run.stride, or a folder'}
            spellCheck={false}
            autoComplete="off"
            data-testid="browse-path-input"
          />
          <button type="button" className="button small" disabled={!typed.trim()} onClick={submitTyped} data-testid="browse-path-go">
            {purpose === 'program' ? 'Go / Choose' : 'Go / Open'}
          </button>
        </div>
        {error && (
          <div className="notice error small" role="alert" data-testid="browse-error">
            {error}
          </div>
        )}
        <ul className="file-browser-list" aria-label={`Folders and ${what}`} data-testid="browse-list">
          {listing?.entries.map((e) => (
            <li key={e.path}>
              <button
                type="button"
                className={`file-entry ${e.kind}`}
                onClick={() => (e.kind === 'dir' ? go(e.path) : onPick(e.path))}
                data-testid="browse-entry"
                data-kind={e.kind}
                data-name={e.name}
              >
                <span aria-hidden="true">{e.kind === 'dir' ? '📁' : e.session ? '◆' : '▶'}</span> {e.name}
                {e.kind === 'dir' ? '/' : ''}
              </button>
            </li>
          ))}
          {listing && listing.entries.length === 0 && <li className="muted small">No folders or {what} here.</li>}
        </ul>
        {listing?.truncated && <p className="muted small">Only the first entries are listed; type the path for others.</p>}
      </div>
    </Dialog>
  )
}

/** "Browse…": the native dialog where there is one, else the backend's browser. */
export function BrowseButton({ purpose, onPick, testId }: { purpose: FilePurpose; onPick(path: string): void; testId?: string }) {
  const [browsing, setBrowsing] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const open = async () => {
    setError(null)
    try {
      const native = await stride().chooseFile({ purpose })
      if (native.available) {
        if (native.path) onPick(native.path)
        return
      }
      setBrowsing(true)
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <>
      <button type="button" className="button" onClick={() => void open()} data-testid={testId}>
        Browse…
      </button>
      {error && (
        <span className="notice error small" role="alert">
          {error}
        </span>
      )}
      {browsing && (
        <FileBrowserDialog
          purpose={purpose}
          onClose={() => setBrowsing(false)}
          onPick={(p) => {
            setBrowsing(false)
            onPick(p)
          }}
        />
      )}
    </>
  )
}
