/** Small parts every screen's forms and side panels share. */
import { useId, type ReactNode } from 'react';
import { t, type MessageKey } from '../i18n/i18n.ts';

/** A labelled form field: the label above its control (`id` ties them). */
export function Field({ id, label, children }: { id: string; label: MessageKey; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{t(label)}</label>
      {children}
    </div>
  );
}

/** A screen's outcome note (announced politely) and error (announced at once), when there are. */
export function Notices({ note, error }: { note: string | null; error: string | null }) {
  return (
    <>
      {note && (
        <p className="note" role="status">
          {note}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** A deletion's confirmation in place: the question, then **Yes, delete** and **Keep it**. */
export function ConfirmDelete({ question, onYes, onNo, busy = false }: { question: string; onYes: () => void; onNo: () => void; busy?: boolean }) {
  const id = useId();
  return (
    <div className="confirm" role="group" aria-labelledby={id}>
      <span id={id}>{question}</span>
      <button type="button" className="danger" onClick={onYes} disabled={busy}>
        {t('confirm.yes')}
      </button>
      <button type="button" onClick={onNo}>
        {t('confirm.no')}
      </button>
    </div>
  );
}
