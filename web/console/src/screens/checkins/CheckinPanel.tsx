/** One check-in opened (checkin/read): when, who, where, the comment, its form, its photos and files. */
import type { Checkin } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { t } from '../../i18n/i18n.ts';

export function CheckinPanel({ checkin: c, who, tracker, onClose }: { checkin: Checkin; who: string; tracker: string; onClose: () => void }) {
  const { api } = useSession();
  const photos = c.files.filter((f) => f.type === 'image' && f.download_url);
  const others = c.files.filter((f) => f.type !== 'image' && f.download_url);
  return (
    <aside className="panel" aria-labelledby="checkin-heading">
      <div className="panel-head">
        <h2 id="checkin-heading">{t('checkins.one', { who, time: c.marker_time })}</h2>
        <button type="button" className="icon" onClick={onClose} aria-label={t('panel.close')}>
          ×
        </button>
      </div>
      <dl className="facts">
        <dt>{t('checkins.time')}</dt>
        <dd>{c.marker_time}</dd>
        <dt>{t('checkins.employee')}</dt>
        <dd>{c.employee_id ? who : t('checkins.noEmployee')}</dd>
        <dt>{t('checkins.tracker')}</dt>
        <dd>{tracker}</dd>
        <dt>{t('checkins.address')}</dt>
        <dd>{c.location.address || '—'}</dd>
        <dt>{t('panel.position')}</dt>
        <dd>
          {`${c.location.lat.toFixed(6)}, ${c.location.lng.toFixed(6)}`}
          {c.location.precision !== null && ` ${t('checkins.precision', { m: c.location.precision })}`}
        </dd>
        <dt>{t('checkins.comment')}</dt>
        <dd>{c.comment ?? '—'}</dd>
        {c.form_label && (
          <>
            <dt>{t('checkins.form')}</dt>
            <dd>{c.form_label}</dd>
          </>
        )}
      </dl>
      <h3>{t('checkins.photos', { count: photos.length })}</h3>
      {photos.length === 0 && <p className="empty">{t('checkins.noPhotos')}</p>}
      <div className="photos">
        {photos.map((f) => (
          <a key={f.id} href={api.fileUrl(f.download_url!)} target="_blank" rel="noreferrer">
            <img src={api.fileUrl(f.download_url!)} alt={f.name} />
          </a>
        ))}
      </div>
      {others.length > 0 && (
        <>
          <h3>{t('checkins.files')}</h3>
          <ul>
            {others.map((f) => (
              <li key={f.id}>
                <a href={api.fileUrl(f.download_url!)} download={f.name}>
                  {f.name}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
    </aside>
  );
}
