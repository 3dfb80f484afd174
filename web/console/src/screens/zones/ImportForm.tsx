/**
 * Import a file: KML or KMZ as zones (zone/upload, stored at once: dry_run=false), semicolon CSV as
 * places (place/upload, with the chosen error and duplicate policies). The answer is shown as it
 * came: how many were created, updated, skipped, and every row error with its line.
 */
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import type { RowError } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { Field } from '../../app/ui.tsx';
import { t } from '../../i18n/i18n.ts';
import { errorText } from '../signin/SignIn.tsx';

interface Outcome {
  message: string;
  rows: RowError[];
  failed: boolean;
}

const isZoneFile = (name: string) => /\.(kml|kmz)$/i.test(name);

export function ImportForm({ onImported, onClose }: { onImported: () => void; onClose: () => void }) {
  const { api } = useSession();
  const [file, setFile] = useState<File | null>(null);
  const [errorPolicy, setErrorPolicy] = useState('ignore');
  const [duplicatePolicy, setDuplicatePolicy] = useState('skip');
  const [radius, setRadius] = useState('150');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!file) return setOutcome({ message: t('zones.import.noFile'), rows: [], failed: true });
    setBusy(true);
    setOutcome(null);
    try {
      if (isZoneFile(file.name)) {
        const r = await api.upload<{ list: number[] }>('zone/upload', { dry_run: 'false', default_radius: radius }, file);
        setOutcome({ message: t('zones.import.zones', { count: r.list.length }), rows: [], failed: false });
      } else {
        const r = await api.upload<{ total: number; created: number; updated: number; skipped: number; errors: number; row_errors: RowError[] }>(
          'place/upload',
          { error_policy: errorPolicy, duplicate_policy: duplicatePolicy, default_radius: radius },
          file,
        );
        const { row_errors: rows, ...counts } = r;
        setOutcome({ message: t('zones.import.places', counts), rows, failed: false });
      }
      onImported();
    } catch (err) {
      const extra = err instanceof ApiError ? err.extra : {};
      const ids = Array.isArray(extra.external_ids) ? ` ${t('zones.import.duplicates', { ids: extra.external_ids.join(', ') })}` : '';
      const rows = Array.isArray(extra.row_errors) ? (extra.row_errors as RowError[]) : [];
      const fields = err instanceof ApiError ? err.errors.map((x) => `${x.parameter}: ${x.error}`).join('; ') : '';
      setOutcome({ message: errorText(err) + ids + (fields ? ` (${fields})` : ''), rows, failed: true });
    } finally {
      setBusy(false);
    }
  }

  const places = file !== null && !isZoneFile(file.name);
  return (
    <form className="task-form" onSubmit={submit} aria-labelledby="import-heading">
      <h3 id="import-heading">{t('zones.import.heading')}</h3>
      <p className="hint">{t('zones.import.hint')}</p>
      <Field id="imp-file" label="zones.import.file">
        <input id="imp-file" type="file" accept=".kml,.kmz,.csv,.txt" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </Field>
      <div className="row3">
        <Field id="imp-radius" label={places ? 'zones.import.placeRadius' : 'zones.import.radius'}>
          <input id="imp-radius" type="number" min={places ? 1 : 20} max={100000} value={radius} onChange={(e) => setRadius(e.target.value)} />
        </Field>
        {places && (
          <>
            <Field id="imp-errors" label="zones.import.errorPolicy">
              <select id="imp-errors" value={errorPolicy} onChange={(e) => setErrorPolicy(e.target.value)}>
                <option value="ignore">{t('zones.import.ignore')}</option>
                <option value="fail">{t('zones.import.fail')}</option>
              </select>
            </Field>
            <Field id="imp-dups" label="zones.import.duplicatePolicy">
              <select id="imp-dups" value={duplicatePolicy} onChange={(e) => setDuplicatePolicy(e.target.value)}>
                <option value="skip">{t('zones.import.skip')}</option>
                <option value="update">{t('zones.import.update')}</option>
                <option value="fail">{t('zones.import.fail')}</option>
              </select>
            </Field>
          </>
        )}
      </div>
      {outcome && (
        <div role={outcome.failed ? 'alert' : 'status'} className={outcome.failed ? 'error' : 'note'}>
          <p className="outcome">{outcome.message}</p>
          {outcome.rows.length > 0 && (
            <table className="tasks row-errors">
              <caption>{t('zones.import.rowErrors')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('zones.import.line')}</th>
                  <th scope="col">{t('zones.import.parameter')}</th>
                  <th scope="col">{t('zones.import.error')}</th>
                </tr>
              </thead>
              <tbody>
                {outcome.rows.map((r, i) => (
                  <tr key={i}>
                    <td>{r.line}</td>
                    <td>{r.parameter}</td>
                    <td>{r.error}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {t('zones.import.submit')}
        </button>
        <button type="button" onClick={onClose}>
          {t('zones.import.close')}
        </button>
      </div>
    </form>
  );
}
