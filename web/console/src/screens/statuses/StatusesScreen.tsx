/**
 * Working statuses: the user's status listings (status/listing/list; a new one by
 * status/listing/create) with their statuses (status/list), one listing edited at a time, and every
 * tracker's listing and current status (tracker/list for each tracker's listing,
 * status/tracker/list, read again every 5 s so changes made in the field app show).
 */
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Employee, StatusListing, Tracker, TrackerStatus, WorkStatus } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { Notices } from '../../app/ui.tsx';
import { t } from '../../i18n/i18n.ts';
import { fullName } from '../../util/people.ts';
import { errorText } from '../signin/SignIn.tsx';
import { ListingEditor } from './ListingEditor.tsx';
import { TrackerStatuses } from './TrackerStatuses.tsx';

const POLL_MS = 5000;

export function StatusesScreen() {
  const { api } = useSession();
  const [listings, setListings] = useState<StatusListing[] | null>(null);
  const [statuses, setStatuses] = useState<Map<number, WorkStatus[]>>(new Map());
  const [trackers, setTrackers] = useState<Tracker[]>([]);
  const [employees, setEmployees] = useState<Employee[]>([]);
  const [current, setCurrent] = useState<Record<string, TrackerStatus>>({});
  const [selected, setSelected] = useState<number | null>(null);
  const [newLabel, setNewLabel] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  /** Trackers whose status can be read and set: not clones, not blocked (status/tracker/list answers 217 for those). */
  const readCurrent = useCallback(
    async (list: Tracker[]) => {
      const ids = list.map((tr) => tr.id);
      const value: Record<string, TrackerStatus> = {};
      for (let i = 0; i < ids.length; i += 500) Object.assign(value, (await api.call<{ value: Record<string, TrackerStatus> }>('status/tracker/list', { trackers: ids.slice(i, i + 500) })).value);
      setCurrent(value);
    },
    [api],
  );

  const load = useCallback(async () => {
    try {
      const [l, tr, emp] = await Promise.all([
        api.call<{ list: StatusListing[] }>('status/listing/list'),
        api.call<{ list: Tracker[] }>('tracker/list'),
        api.call<{ list: Employee[] }>('employee/list'),
      ]);
      const lists = await Promise.all(l.list.map((x) => api.call<{ list: WorkStatus[] }>('status/list', { listing_id: x.id })));
      const usable = tr.list.filter((x) => !x.clone && !x.source.blocked);
      setStatuses(new Map(l.list.map((x, i) => [x.id, lists[i].list])));
      setListings(l.list);
      setTrackers(usable);
      setEmployees(emp.list);
      await readCurrent(usable);
      setSelected((s) => (s !== null && l.list.some((x) => x.id === s) ? s : (l.list[0]?.id ?? null)));
    } catch (e) {
      setError(errorText(e));
    }
  }, [api, readCurrent]);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (!trackers.length) return;
    const timer = setInterval(() => void readCurrent(trackers).catch(() => {}), POLL_MS);
    return () => clearInterval(timer);
  }, [trackers, readCurrent]);

  const changed = (message: string) => {
    setNote(message);
    setError(null);
    void load();
  };
  const failed = (message: string) => {
    setNote(null);
    setError(message);
  };
  const act = async (work: () => Promise<unknown>, message: string) => {
    try {
      await work();
      changed(message);
    } catch (e) {
      failed(errorText(e));
    }
  };

  const create = (e: FormEvent) => {
    e.preventDefault();
    const label = newLabel.trim();
    if (!label) return;
    void act(async () => {
      const r = await api.call<{ id: number }>('status/listing/create', { listing: { label } });
      setSelected(r.id);
      setNewLabel('');
    }, t('statuses.listingCreated', { label }));
  };

  const employeeOf = useMemo(() => new Map(employees.filter((x) => x.tracker_id).map((x) => [x.tracker_id!, fullName(x)])), [employees]);
  const listing = listings?.find((l) => l.id === selected) ?? null;
  return (
    <div className="statuses">
      <section className="dispatch-side" aria-labelledby="statuses-heading">
        <div className="list-head">
          <h2 id="statuses-heading">{t('statuses.heading')}</h2>
          {listings && <span className="count">{t('statuses.count', { count: listings.length })}</span>}
        </div>
        <Notices note={note} error={error} />
        <ul className="entities" aria-label={t('statuses.listings')}>
          {listings?.map((l) => (
            <li key={l.id} className={l.id === selected ? 'selected' : undefined}>
              <button type="button" onClick={() => setSelected(l.id)} aria-pressed={l.id === selected}>
                <span className="swatches">
                  {(statuses.get(l.id) ?? []).map((s) => (
                    <span key={s.id} className="swatch" style={{ background: `#${s.color}` }} />
                  ))}
                </span>
                <span className="name">{l.label}</span>
                <span className="meta">{(statuses.get(l.id) ?? []).map((s) => s.label).join(' · ') || t('statuses.noStatuses')}</span>
              </button>
            </li>
          ))}
        </ul>
        {listings && listings.length === 0 && <p className="empty pad">{t('statuses.noListings')}</p>}
        <form className="status-edit new" onSubmit={create} aria-label={t('statuses.newListing')}>
          <input aria-label={t('statuses.newListingLabel')} placeholder={t('statuses.newListingLabel')} value={newLabel} onChange={(e) => setNewLabel(e.target.value)} maxLength={100} />
          <button type="submit" disabled={!newLabel.trim()}>
            {t('statuses.createListing')}
          </button>
        </form>
        {listing && <ListingEditor key={listing.id} listing={listing} statuses={statuses.get(listing.id) ?? []} onChanged={changed} onDeleted={(m) => (setSelected(null), changed(m))} onError={failed} />}
      </section>
      <section className="statuses-main" aria-labelledby="tracker-statuses-heading">
        <div className="list-head">
          <h2 id="tracker-statuses-heading">{t('statuses.trackersHeading')}</h2>
        </div>
        <TrackerStatuses
          trackers={trackers}
          employeeOf={employeeOf}
          listings={listings ?? []}
          statuses={statuses}
          current={current}
          onListing={(tr, id) => void act(() => api.call('status/listing/tracker/assign', { tracker_id: tr.id, listing_id: id }), t('statuses.listingAssigned', { tracker: tr.label }))}
          onStatus={(tr, id) => void act(() => api.call('status/tracker/assign', { tracker_id: tr.id, new_status_id: id }), t('statuses.statusSet', { tracker: tr.label, status: statuses.get(tr.source.status_listing_id ?? -1)?.find((s) => s.id === id)?.label ?? '' }))}
        />
      </section>
    </div>
  );
}
