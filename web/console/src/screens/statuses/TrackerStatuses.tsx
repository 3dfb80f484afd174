/**
 * Each tracker's listing and current status as a table: the listing chosen per tracker
 * (status/listing/tracker/assign), the status set (status/tracker/assign) where the listing lets a
 * supervisor change it, the last change (when, by whom).
 */
import type { StatusListing, Tracker, TrackerStatus, WorkStatus } from '../../api/types.ts';
import { t } from '../../i18n/i18n.ts';
import { hex } from './ListingEditor.tsx';

interface Props {
  trackers: Tracker[];
  employeeOf: Map<number, string>;
  listings: StatusListing[];
  statuses: Map<number, WorkStatus[]>;
  current: Record<string, TrackerStatus>;
  onListing: (tracker: Tracker, listingId: number | null) => void;
  onStatus: (tracker: Tracker, statusId: number) => void;
}

export function TrackerStatuses({ trackers, employeeOf, listings, statuses, current, onListing, onStatus }: Props) {
  const listingOf = new Map(listings.map((l) => [l.id, l]));
  return (
    <div className="table-wrap">
      <table className="tasks tracker-statuses">
        <thead>
          <tr>
            <th scope="col">{t('statuses.col.tracker')}</th>
            <th scope="col">{t('statuses.col.employee')}</th>
            <th scope="col">{t('statuses.col.listing')}</th>
            <th scope="col">{t('statuses.col.status')}</th>
            <th scope="col">{t('statuses.col.changed')}</th>
          </tr>
        </thead>
        <tbody>
          {trackers.map((tr) => {
            const listing = tr.source.status_listing_id ? listingOf.get(tr.source.status_listing_id) : undefined;
            const now = current[tr.id];
            const status = now?.current_status ?? null;
            const change = now?.last_change ?? null;
            return (
              <tr key={tr.id}>
                <th scope="row">{tr.label}</th>
                <td>{employeeOf.get(tr.id) ?? '—'}</td>
                <td>
                  <select aria-label={t('statuses.listingOf', { tracker: tr.label })} value={listing?.id ?? ''} onChange={(e) => onListing(tr, e.target.value ? Number(e.target.value) : null)}>
                    <option value="">{t('statuses.noListing')}</option>
                    {listings.map((l) => (
                      <option key={l.id} value={l.id}>
                        {l.label}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  {!listing ? (
                    '—'
                  ) : listing.supervisor_controlled ? (
                    <span className="status-pick">
                      <span className="swatch" style={{ background: status ? hex(status.color) : 'transparent' }} />
                      <select aria-label={t('statuses.statusOf', { tracker: tr.label })} value={status?.id ?? ''} onChange={(e) => e.target.value && onStatus(tr, Number(e.target.value))}>
                        {!status && <option value="">{t('statuses.noStatus')}</option>}
                        {(statuses.get(listing.id) ?? []).map((s) => (
                          <option key={s.id} value={s.id}>
                            {s.label}
                          </option>
                        ))}
                      </select>
                    </span>
                  ) : (
                    <span className="status-pick">
                      <span className="swatch" style={{ background: status ? hex(status.color) : 'transparent' }} />
                      {status?.label ?? t('statuses.noStatus')} <span className="hint">{t('statuses.employeeOnly')}</span>
                    </span>
                  )}
                </td>
                <td className="nowrap">{change ? t(change.origin === 'employee' ? 'statuses.byEmployee' : 'statuses.bySupervisor', { time: change.changed }) : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {trackers.length === 0 && <p className="empty pad">{t('statuses.noTrackers')}</p>}
    </div>
  );
}
