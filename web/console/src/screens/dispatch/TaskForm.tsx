/** A new task (task/create): label, window, place (typed, or picked on the map), optional tracker. */
import { useState, type FormEvent, type ReactNode } from 'react';
import type { Tracker } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { Field } from '../../app/ui.tsx';
import { t, type MessageKey } from '../../i18n/i18n.ts';
import { fromInput, nowIn, toInput, wallMs, wallString } from '../../util/time.ts';
import { errorText } from '../signin/SignIn.tsx';

export interface PlacePick {
  lat: string;
  lng: string;
}

interface Props {
  trackers: Tracker[];
  place: PlacePick;
  onPlace: (p: PlacePick) => void;
  picking: boolean;
  onPick: () => void;
  onCreated: (id: number, label: string) => void;
  onCancel: () => void;
}

export function TaskForm({ trackers, place, onPlace, picking, onPick, onCreated, onCancel }: Props) {
  const { api, timeZone } = useSession();
  const now = wallMs(nowIn(timeZone));
  const [label, setLabel] = useState('');
  const [description, setDescription] = useState('');
  const [trackerId, setTrackerId] = useState('');
  const [from, setFrom] = useState(toInput(wallString(now - 5 * 60_000)));
  const [to, setTo] = useState(toInput(wallString(now + 2 * 3600_000)));
  const [radius, setRadius] = useState('150');
  const [address, setAddress] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const task = {
        label: label.trim(),
        description,
        from: fromInput(from),
        to: fromInput(to),
        location: { lat: Number(place.lat), lng: Number(place.lng), radius: Number(radius), address },
        ...(trackerId ? { tracker_id: Number(trackerId) } : {}),
      };
      const r = await api.call<{ id: number }>('task/create', { task });
      onCreated(r.id, task.label);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const field = (id: string, key: MessageKey, input: ReactNode) => (
    <Field id={id} label={key}>
      {input}
    </Field>
  );
  return (
    <form className="task-form" onSubmit={submit} aria-labelledby="task-form-heading">
      <h3 id="task-form-heading">{t('dispatch.form.heading')}</h3>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {field('tf-label', 'dispatch.form.label', <input id="tf-label" value={label} onChange={(e) => setLabel(e.target.value)} required />)}
      {field('tf-description', 'dispatch.form.description', <input id="tf-description" value={description} onChange={(e) => setDescription(e.target.value)} />)}
      {field(
        'tf-tracker',
        'dispatch.form.tracker',
        <select id="tf-tracker" value={trackerId} onChange={(e) => setTrackerId(e.target.value)}>
          <option value="">{t('dispatch.unassigned')}</option>
          {trackers.map((tr) => (
            <option key={tr.id} value={tr.id}>
              {tr.label}
            </option>
          ))}
        </select>,
      )}
      <div className="row2">
        {field('tf-from', 'dispatch.form.from', <input id="tf-from" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />)}
        {field('tf-to', 'dispatch.form.to', <input id="tf-to" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />)}
      </div>
      <div className="row3">
        {field('tf-lat', 'dispatch.form.lat', <input id="tf-lat" inputMode="decimal" value={place.lat} onChange={(e) => onPlace({ ...place, lat: e.target.value })} />)}
        {field('tf-lng', 'dispatch.form.lng', <input id="tf-lng" inputMode="decimal" value={place.lng} onChange={(e) => onPlace({ ...place, lng: e.target.value })} />)}
        {field('tf-radius', 'dispatch.form.radius', <input id="tf-radius" inputMode="numeric" value={radius} onChange={(e) => setRadius(e.target.value)} />)}
      </div>
      <button type="button" onClick={onPick} aria-pressed={picking}>
        {picking ? t('dispatch.form.picking') : t('dispatch.form.pick')}
      </button>
      {field('tf-address', 'dispatch.form.address', <input id="tf-address" value={address} onChange={(e) => setAddress(e.target.value)} />)}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {t('dispatch.form.create')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('dispatch.form.cancel')}
        </button>
      </div>
    </form>
  );
}
