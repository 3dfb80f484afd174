/**
 * One status listing edited: its name and who may change a status (status/listing/update), its
 * statuses in order (status/update, status/delete; moved up or down by the listing's `entries`),
 * a new status (status/create), and the listing deleted (status/listing/delete).
 */
import { useEffect, useState, type FormEvent } from 'react';
import type { StatusListing, WorkStatus } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { ConfirmDelete, Field } from '../../app/ui.tsx';
import { t } from '../../i18n/i18n.ts';
import { errorText } from '../signin/SignIn.tsx';

export const hex = (c: string) => `#${c.toLowerCase()}`;
const fromHex = (c: string) => c.replace('#', '').toUpperCase();

interface Props {
  listing: StatusListing;
  statuses: WorkStatus[];
  /** After a change: reload, with the note to show. */
  onChanged: (note: string) => void;
  onDeleted: (note: string) => void;
  onError: (error: string) => void;
}

export function ListingEditor({ listing, statuses, onChanged, onDeleted, onError }: Props) {
  const { api } = useSession();
  const [label, setLabel] = useState(listing.label);
  const [employee, setEmployee] = useState(listing.employee_controlled);
  const [supervisor, setSupervisor] = useState(listing.supervisor_controlled);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setLabel(listing.label);
    setEmployee(listing.employee_controlled);
    setSupervisor(listing.supervisor_controlled);
  }, [listing]);

  const run = async (work: () => Promise<unknown>, done: (note: string) => void, note: string) => {
    setBusy(true);
    try {
      await work();
      done(note);
    } catch (e) {
      onError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const update = (entries: number[], fields = { label: label.trim(), employee_controlled: employee, supervisor_controlled: supervisor }) =>
    api.call('status/listing/update', { listing: { id: listing.id, ...fields, entries } });

  const save = (e: FormEvent) => {
    e.preventDefault();
    void run(() => update(listing.entries), onChanged, t('statuses.listingSaved', { label: label.trim() }));
  };
  const move = (i: number, by: -1 | 1) => {
    const entries = [...listing.entries];
    [entries[i], entries[i + by]] = [entries[i + by], entries[i]];
    const keep = { label: listing.label, employee_controlled: listing.employee_controlled, supervisor_controlled: listing.supervisor_controlled };
    void run(() => update(entries, keep), onChanged, t('statuses.moved', { label: statuses[i].label }));
  };

  return (
    <div className="listing-editor">
      <form className="task-form" onSubmit={save} aria-labelledby="listing-heading">
        <h3 id="listing-heading">{t('statuses.listingHeading', { label: listing.label })}</h3>
        <Field id="l-label" label="statuses.listingLabel">
          <input id="l-label" value={label} onChange={(e) => setLabel(e.target.value)} required maxLength={100} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={supervisor} onChange={(e) => setSupervisor(e.target.checked)} /> {t('statuses.supervisorControlled')}
        </label>
        <label className="check">
          <input type="checkbox" checked={employee} onChange={(e) => setEmployee(e.target.checked)} /> {t('statuses.employeeControlled')}
        </label>
        <div className="actions">
          <button type="submit" disabled={busy}>
            {t('statuses.saveListing')}
          </button>
          {!confirming && (
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              {t('statuses.deleteListing')}
            </button>
          )}
        </div>
        {confirming && (
          <ConfirmDelete
            question={t('statuses.confirmListing', { label: listing.label })}
            busy={busy}
            onNo={() => setConfirming(false)}
            onYes={() => void run(() => api.call('status/listing/delete', { listing_id: listing.id }), onDeleted, t('statuses.listingDeleted', { label: listing.label }))}
          />
        )}
      </form>
      <h3 className="sub-head">{t('statuses.statuses')}</h3>
      {statuses.length === 0 && <p className="empty pad">{t('statuses.noStatuses')}</p>}
      <ol className="status-list" aria-label={t('statuses.statusesOf', { label: listing.label })}>
        {statuses.map((s, i) => (
          <StatusRow key={s.id} status={s} first={i === 0} last={i === statuses.length - 1} busy={busy} onMove={(by) => move(i, by)} run={run} onChanged={onChanged} />
        ))}
      </ol>
      <NewStatus listingId={listing.id} busy={busy} run={run} onChanged={onChanged} />
    </div>
  );
}

type Run = (work: () => Promise<unknown>, done: (note: string) => void, note: string) => Promise<void>;

function StatusRow({ status: s, first, last, busy, onMove, run, onChanged }: { status: WorkStatus; first: boolean; last: boolean; busy: boolean; onMove: (by: -1 | 1) => void; run: Run; onChanged: (note: string) => void }) {
  const { api } = useSession();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [label, setLabel] = useState(s.label);
  const [color, setColor] = useState(hex(s.color));
  if (editing) {
    const save = (e: FormEvent) => {
      e.preventDefault();
      void run(() => api.call('status/update', { status: { id: s.id, label: label.trim(), color: fromHex(color) } }), (note) => (setEditing(false), onChanged(note)), t('statuses.statusSaved', { label: label.trim() }));
    };
    return (
      <li>
        <form className="status-edit" onSubmit={save} aria-label={t('statuses.editNamed', { label: s.label })}>
          <input aria-label={t('statuses.statusLabel')} value={label} onChange={(e) => setLabel(e.target.value)} required maxLength={100} />
          <input aria-label={t('statuses.statusColor')} type="color" value={color} onChange={(e) => setColor(e.target.value)} />
          <button type="submit" className="small" disabled={busy}>
            {t('statuses.save')}
          </button>
          <button type="button" className="small" onClick={() => setEditing(false)}>
            {t('dispatch.form.cancel')}
          </button>
        </form>
      </li>
    );
  }
  return (
    <li>
      <span className="swatch" style={{ background: hex(s.color) }} />
      <span className="name">{s.label}</span>
      <span className="buttons">
        <button type="button" className="small" disabled={first || busy} onClick={() => onMove(-1)} aria-label={t('statuses.up', { label: s.label })}>
          ↑
        </button>
        <button type="button" className="small" disabled={last || busy} onClick={() => onMove(1)} aria-label={t('statuses.down', { label: s.label })}>
          ↓
        </button>
        <button type="button" className="small" onClick={() => setEditing(true)} aria-label={t('statuses.editNamed', { label: s.label })}>
          {t('statuses.edit')}
        </button>
        {!confirming && (
          <button type="button" className="small danger" onClick={() => setConfirming(true)} aria-label={t('statuses.deleteNamed', { label: s.label })}>
            {t('statuses.delete')}
          </button>
        )}
      </span>
      {confirming && (
        <ConfirmDelete
          question={t('statuses.confirmStatus', { label: s.label })}
          busy={busy}
          onNo={() => setConfirming(false)}
          onYes={() => void run(() => api.call('status/delete', { status_id: s.id }), onChanged, t('statuses.statusDeleted', { label: s.label }))}
        />
      )}
    </li>
  );
}

function NewStatus({ listingId, busy, run, onChanged }: { listingId: number; busy: boolean; run: Run; onChanged: (note: string) => void }) {
  const { api } = useSession();
  const [label, setLabel] = useState('');
  const [color, setColor] = useState('#1d6fd6');
  const add = (e: FormEvent) => {
    e.preventDefault();
    const name = label.trim();
    if (!name) return;
    void run(() => api.call('status/create', { listing_id: listingId, status: { label: name, color: fromHex(color) } }), (note) => (setLabel(''), onChanged(note)), t('statuses.statusAdded', { label: name }));
  };
  return (
    <form className="status-edit new" onSubmit={add} aria-label={t('statuses.newStatus')}>
      <input aria-label={t('statuses.newStatusLabel')} placeholder={t('statuses.newStatusLabel')} value={label} onChange={(e) => setLabel(e.target.value)} maxLength={100} />
      <input aria-label={t('statuses.newStatusColor')} type="color" value={color} onChange={(e) => setColor(e.target.value)} />
      <button type="submit" disabled={busy || !label.trim()}>
        {t('statuses.add')}
      </button>
    </form>
  );
}
