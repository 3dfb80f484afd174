/**
 * The form beside the map for the zone or place being drawn or edited: its members, its points
 * (added by clicking the map or, by keyboard, at the map's centre), save and delete. Saving a new
 * zone is zone/create with its points; an edited one zone/update, plus zone/point/update when its
 * points moved. Places: place/create and place/update (which replace every member, so the
 * unchanged ones are sent back as read).
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import type { LatLng } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { ConfirmDelete, Field } from '../../app/ui.tsx';
import { t, type MessageKey } from '../../i18n/i18n.ts';
import { errorText } from '../signin/SignIn.tsx';
import type { Draft } from './zone-layer.ts';

interface Props {
  draft: Draft;
  onChange: (d: Draft) => void;
  /** Adds a point (or sets the centre) at the map's centre: drawing without a pointer. */
  onAddAtCentre: () => void;
  onSaved: (message: string) => Promise<void>;
  onCancel: () => void;
}

const fmt = (p: LatLng) => `${p.lat.toFixed(6)}, ${p.lng.toFixed(6)}`;

export function DraftForm({ draft, onChange, onAddAtCentre, onSaved, onCancel }: Props) {
  const { api } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const isZone = draft.kind === 'zone';
  const type = isZone ? draft.type : 'circle';
  const what = isZone ? t(`zones.type.${draft.type}` as MessageKey) : t('zones.place');

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (draft.kind === 'zone') {
        const zone = {
          type: draft.type,
          label: draft.label.trim(),
          address: draft.address,
          color: draft.color,
          tags: draft.tags,
          ...(draft.type !== 'polygon' ? { radius: draft.radius } : {}),
          ...(draft.type === 'circle' && draft.center ? { center: draft.center } : {}),
        };
        // A sausage's route nodes (`node`) stay as read; added points are not nodes.
        const points = draft.points.map((p) => ({ lat: p.lat, lng: p.lng, node: (p as { node?: boolean }).node === true }));
        if (draft.id === undefined) await api.call('zone/create', { zone, ...(draft.type !== 'circle' ? { points } : {}) });
        else {
          await api.call('zone/update', { zone: { ...zone, id: draft.id } });
          if (draft.type !== 'circle' && draft.pointsChanged) await api.call('zone/point/update', { zone_id: draft.id, points });
        }
      } else {
        const place = {
          label: draft.label.trim(),
          description: draft.description,
          location: { ...(draft.center ?? { lat: NaN, lng: NaN }), radius: draft.radius, address: draft.address },
          external_id: draft.external_id,
          ...(draft.tags.length ? { tags: draft.tags } : {}),
        };
        if (!draft.center) throw new Error(t('zones.needCentre'));
        if (draft.id === undefined) await api.call('place/create', { place });
        else await api.call('place/update', { place: { ...place, id: draft.id } });
      }
      await onSaved(t(draft.id === undefined ? 'zones.created' : 'zones.saved', { label: draft.label.trim() }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setBusy(true);
    try {
      if (draft.kind === 'zone') await api.call('zone/delete', { zone_id: draft.id });
      else await api.call('place/delete', { place_id: draft.id });
      await onSaved(t('zones.deleted', { label: draft.label }));
    } catch (err) {
      setError(errorText(err));
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  }

  const field = (id: string, key: MessageKey, input: ReactNode) => (
    <Field id={id} label={key}>
      {input}
    </Field>
  );
  const setPoints = (points: LatLng[]) => draft.kind === 'zone' && onChange({ ...draft, points, pointsChanged: true });
  const setCentre = (axis: 'lat' | 'lng', value: string) => {
    const c = draft.center ?? { lat: 0, lng: 0 };
    onChange({ ...draft, center: { ...c, [axis]: Number(value) } });
  };
  const heading = draft.id === undefined ? t('zones.newHeading', { what }) : t('zones.editHeading', { what, label: draft.label });

  return (
    <form className="task-form" onSubmit={save} aria-labelledby="zone-form-heading">
      <h3 id="zone-form-heading">{heading}</h3>
      <p className="hint" id="zone-form-hint">
        {t(type === 'circle' ? (isZone ? 'zones.hint.circle' : 'zones.hint.place') : 'zones.hint.points')}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {field('zf-label', 'zones.label', <input id="zf-label" value={draft.label} onChange={(e) => onChange({ ...draft, label: e.target.value })} required maxLength={200} />)}
      <div className="row3">
        {isZone &&
          field(
            'zf-color',
            'zones.color',
            <input id="zf-color" type="color" value={`#${draft.color}`} onChange={(e) => onChange({ ...draft, color: e.target.value.slice(1).toUpperCase() })} />,
          )}
        {type !== 'polygon' &&
          field('zf-radius', 'zones.radius', <input id="zf-radius" type="number" min={1} max={100000} value={draft.radius} onChange={(e) => onChange({ ...draft, radius: Number(e.target.value) })} />)}
      </div>
      {type === 'circle' && (
        <div className="row3">
          {field('zf-lat', 'dispatch.form.lat', <input id="zf-lat" inputMode="decimal" value={draft.center?.lat ?? ''} onChange={(e) => setCentre('lat', e.target.value)} />)}
          {field('zf-lng', 'dispatch.form.lng', <input id="zf-lng" inputMode="decimal" value={draft.center?.lng ?? ''} onChange={(e) => setCentre('lng', e.target.value)} />)}
        </div>
      )}
      {draft.kind === 'place' && field('zf-description', 'dispatch.form.description', <input id="zf-description" value={draft.description} onChange={(e) => onChange({ ...draft, description: e.target.value })} />)}
      {field('zf-address', 'dispatch.form.address', <input id="zf-address" value={draft.address} onChange={(e) => onChange({ ...draft, address: e.target.value })} />)}
      {draft.kind === 'zone' && type !== 'circle' && (
        <div>
          <h4 id="zf-points">{t('zones.points', { count: draft.points.length })}</h4>
          <ol className="points" aria-labelledby="zf-points">
            {draft.points.map((p, i) => (
              <li key={i}>
                <span>{fmt(p)}</span>
                <button type="button" className="small" aria-label={t('zones.removePoint', { n: i + 1 })} onClick={() => setPoints(draft.points.filter((_, j) => j !== i))}>
                  ✕
                </button>
              </li>
            ))}
          </ol>
        </div>
      )}
      <div className="actions">
        <button type="button" onClick={onAddAtCentre}>
          {t(type === 'circle' ? 'zones.centreHere' : 'zones.addAtCentre')}
        </button>
      </div>
      <div className="actions">
        <button type="submit" disabled={busy}>
          {t('zones.save')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('dispatch.form.cancel')}
        </button>
        {draft.id !== undefined && !confirming && (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            {t('zones.delete')}
          </button>
        )}
      </div>
      {confirming && <ConfirmDelete question={t('zones.confirmDelete', { label: draft.label })} onYes={() => void remove()} onNo={() => setConfirming(false)} busy={busy} />}
    </form>
  );
}
