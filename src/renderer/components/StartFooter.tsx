/** The footer of a dialog that starts a job: the error (if any), Close, and the form's submit button. */
interface Props {
  error: string | null
  errorTestId: string
  onClose: () => void
  /** The form the submit button belongs to. */
  form: string
  disabled: boolean
  starting: boolean
  label: string
  testId: string
}

export function StartFooter({ error, errorTestId, onClose, form, disabled, starting, label, testId }: Props) {
  return (
    <>
      {error && (
        <p className="form-error" role="alert" data-testid={errorTestId}>
          {error}
        </p>
      )}
      <button type="button" className="button" onClick={onClose}>
        Close
      </button>
      <button type="submit" form={form} className="button primary" disabled={disabled} data-testid={testId}>
        {starting ? 'Starting…' : label}
      </button>
    </>
  )
}
