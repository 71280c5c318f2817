/**
 * Fetch a program's function symbols as its path changes (debounced while typing).
 * A hook rather than a store: the answer only matters to the open launch dialog.
 */
import { useEffect, useState } from 'react'
import type { ProgramSymbols } from '../../shared/domain'
import { errorMessage, stride } from './stride'

export type SymbolsState =
  | { status: 'idle' }
  | { status: 'loading'; program: string }
  | { status: 'ready'; program: string; symbols: ProgramSymbols }
  | { status: 'error'; program: string; error: string }

export function useProgramSymbols(program: string, debounceMs: number): SymbolsState {
  const [state, setState] = useState<SymbolsState>({ status: 'idle' })

  useEffect(() => {
    const p = program.trim()
    if (!p) {
      setState({ status: 'idle' })
      return
    }
    let live = true
    setState({ status: 'loading', program: p })
    const timer = setTimeout(() => {
      stride()
        .inspectProgram({ program: p })
        .then(
          (symbols) => live && setState({ status: 'ready', program: p, symbols }),
          (e: unknown) => live && setState({ status: 'error', program: p, error: errorMessage(e) })
        )
    }, debounceMs)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [program, debounceMs])

  return state
}
