/**
 * Check-ins: the field staff's check-ins of a period, newest first (checkin/list, 50 a page),
 * filtered by employee (the list's `employee` condition; employees from employee/list), with their
 * comments and photos (files by their download_url with the session), on the map; one opened
 * (checkin/read) shows everything it holds and centres the map on it.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import * as maplibregl from 'maplibre-gl';
import type { Map as MlMap, MapMouseEvent } from 'maplibre-gl';
import type { Checkin, Employee } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { Field, Notices } from '../../app/ui.tsx';
import { t } from '../../i18n/i18n.ts';
import { MapCanvas } from '../../map/MapCanvas.tsx';
import { fullName } from '../../util/people.ts';
import { fromInput, nowIn, toInput, wallMs, wallString } from '../../util/time.ts';
import { errorText } from '../signin/SignIn.tsx';
import { addCheckinLayers, checkinLabels, showCheckins } from './checkin-layer.ts';
import { CheckinPanel } from './CheckinPanel.tsx';

const PAGE = 50;
const DAY = 86_400_000;
/** The employee filter: every check-in, those without an employee, or one employee's. */
type Who = '' | 'none' | `${number}`;

export function CheckinsScreen() {
  const { api, trackers, timeZone } = useSession();
  const now = nowIn(timeZone);
  const [employees, setEmployees] = useState<Employee[]>([]);
  const [who, setWho] = useState<Who>('');
  const [from, setFrom] = useState(toInput(`${wallString(wallMs(now) - 6 * DAY).slice(0, 10)} 00:00:00`));
  const [to, setTo] = useState(toInput(wallString(wallMs(now) + 60_000)));
  const [list, setList] = useState<Checkin[] | null>(null);
  const [count, setCount] = useState(0);
  const [open, setOpen] = useState<Checkin | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [map, setMap] = useState<MlMap | null>(null);

  useEffect(() => {
    api.call<{ list: Employee[] }>('employee/list').then((r) => setEmployees(r.list), (e) => setError(errorText(e)));
  }, [api]);

  const employeeName = useMemo(() => new Map(employees.map((e) => [e.id, fullName(e)])), [employees]);
  const trackerName = useMemo(() => new Map(trackers.map((tr) => [tr.id, tr.label])), [trackers]);
  const whoOf = useCallback((c: Checkin) => (c.employee_id && employeeName.get(c.employee_id)) || trackerName.get(c.tracker_id) || `#${c.tracker_id}`, [employeeName, trackerName]);

  const load = useCallback(
    async (offset: number) => {
      setBusy(true);
      setError(null);
      try {
        const condition = who === '' ? [] : [{ type: 'eq', field: 'employee', value: who === 'none' ? null : Number(who) }];
        const r = await api.call<{ list: Checkin[]; count: number }>('checkin/list', {
          from: fromInput(from),
          to: fromInput(to),
          ...(condition.length ? { conditions: condition } : {}),
          sort: ['marker_time=desc'],
          limit: PAGE,
          offset,
        });
        setList((l) => (offset && l ? [...l, ...r.list] : r.list));
        setCount(r.count);
      } catch (e) {
        setError(errorText(e));
      } finally {
        setBusy(false);
      }
    },
    [api, who, from, to],
  );

  useEffect(() => {
    void load(0);
    // The first page at once; later filters apply with Show.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const choose = async (id: number) => {
    try {
      const r = await api.call<{ value: Checkin }>('checkin/read', { checkin_id: id });
      setOpen(r.value);
      map?.easeTo({ center: [r.value.location.lng, r.value.location.lat], zoom: Math.max(map.getZoom(), 12) });
    } catch (e) {
      setError(errorText(e));
    }
  };

  const chooseRef = useRef(choose);
  chooseRef.current = choose;
  const onReady = useCallback((m: MlMap) => {
    addCheckinLayers(m);
    // A click on a check-in's dot opens it.
    m.on('click', (e: MapMouseEvent) => {
      const hit = m.queryRenderedFeatures(e.point, { layers: ['checkins'] })[0];
      if (hit) void chooseRef.current(Number(hit.properties.id));
    });
    setMap(m);
  }, []);

  useEffect(() => {
    if (!map || !list) return;
    showCheckins(map, list, open?.id ?? null, whoOf);
  }, [map, list, open, whoOf]);

  // Each new list is framed on the map.
  useEffect(() => {
    if (!map || !list?.length) return;
    const b = new maplibregl.LngLatBounds();
    for (const c of list) b.extend([c.location.lng, c.location.lat]);
    map.fitBounds(b, { padding: 80, maxZoom: 15, duration: 0 });
  }, [map, list]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setOpen(null);
    void load(0);
  };

  return (
    <div className={`checkins${open ? ' with-panel' : ''}`}>
      <section className="dispatch-side" aria-labelledby="checkins-heading">
        <div className="list-head">
          <h2 id="checkins-heading">{t('checkins.heading')}</h2>
          {list && <span className="count">{t('checkins.count', { shown: list.length, count })}</span>}
        </div>
        <form className="task-form" onSubmit={submit}>
          <Field id="c-who" label="checkins.employee">
            <select id="c-who" value={who} onChange={(e) => setWho(e.target.value as Who)}>
              <option value="">{t('checkins.everyone')}</option>
              <option value="none">{t('checkins.noEmployee')}</option>
              {employees.map((e) => (
                <option key={e.id} value={e.id}>
                  {fullName(e)}
                </option>
              ))}
            </select>
          </Field>
          <div className="period-fields">
            <Field id="c-from" label="history.from">
              <input id="c-from" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
            </Field>
            <Field id="c-to" label="history.to">
              <input id="c-to" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
            </Field>
          </div>
          <div className="actions">
            <button type="submit" disabled={busy}>
              {t('history.show')}
            </button>
          </div>
        </form>
        <Notices note={null} error={error} />
        {list && list.length === 0 && <p className="empty pad">{t('checkins.none')}</p>}
        <ul className="checkin-list" aria-label={t('checkins.heading')}>
          {list?.map((c) => {
            const photos = c.files.filter((f) => f.type === 'image' && f.download_url);
            return (
              <li key={c.id} className={open?.id === c.id ? 'selected' : undefined}>
                <button type="button" className="link" onClick={() => void choose(c.id)}>
                  {t('checkins.one', { who: whoOf(c), time: c.marker_time })}
                </button>
                <div className="meta">{c.location.address || `${c.location.lat.toFixed(5)}, ${c.location.lng.toFixed(5)}`}</div>
                {c.comment && <p className="comment">{c.comment}</p>}
                {(photos.length > 0 || c.form_label) && (
                  <div className="thumbs">
                    {photos.map((f) => (
                      <img key={f.id} src={api.fileUrl(f.download_url!)} alt={f.name} loading="lazy" />
                    ))}
                    {c.form_label && <span className="badge">{t('checkins.formBadge', { label: c.form_label })}</span>}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
        {list && list.length < count && (
          <button type="button" className="more" disabled={busy} onClick={() => void load(list.length)}>
            {t('checkins.more')}
          </button>
        )}
      </section>
      <MapCanvas label={t('checkins.map')} onReady={onReady} extraLabels={checkinLabels} labelsVersion={(list?.length ?? 0) + (open?.id ?? 0)} />
      {open && <CheckinPanel checkin={open} who={whoOf(open)} tracker={trackerName.get(open.tracker_id) ?? `#${open.tracker_id}`} onClose={() => setOpen(null)} />}
    </div>
  );
}
