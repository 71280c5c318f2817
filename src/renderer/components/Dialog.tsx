/**
 * Modal dialog on the native <dialog> element: the browser gives us the top layer, focus
 * containment and Escape-to-close (the `cancel` event) for free.
 */
import { useEffect, useRef, type ReactNode } from 'react'

interface Props {
  title: string
  onClose(): void
  children: ReactNode
  footer?: ReactNode
  testId?: string
  className?: string
}

export function Dialog({ title, onClose, children, footer, testId, className }: Props) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = `dialog-title-${title.replace(/\W+/g, '-').toLowerCase()}`

  useEffect(() => {
    const d = ref.current
    if (d && !d.open) d.showModal()
    // Start in the content, not on the header's Close button the browser would pick.
    d?.querySelector<HTMLElement>('.dialog-body :is(input, select, textarea, button):not(:disabled)')?.focus()
    return () => d?.close()
  }, [])

  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(e) => {
        // Let React own the open state: close through the parent.
        e.preventDefault()
        onClose()
      }}
    >
      <header className="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="dialog-body">{children}</div>
      {footer && <footer className="dialog-footer">{footer}</footer>}
    </dialog>
  )
}
