/**
 * The searchable list of trackers beside the map: name, connection state, speed, last update.
 * Only the rows in view are in the page (thousands of trackers scroll smoothly); arrow keys move
 * through the list, Enter opens a tracker.
 */
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { SourceState, Tracker } from '../../api/types.ts';
import { t } from '../../i18n/i18n.ts';
import { speedText, statusOf, statusText } from './status.ts';

const ROW = 58;

interface Props {
  trackers: Tracker[];
  states: ReadonlyMap<number, SourceState>;
  selected: number | null;
  onSelect: (id: number) => void;
}

export function TrackerList({ trackers, states, selected, onSelect }: Props) {
  const [query, setQuery] = useState('');
  const [scroll, setScroll] = useState(0);
  const [height, setHeight] = useState(600);
  const box = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    const list = q ? trackers.filter((tr) => tr.label.toLowerCase().includes(q) || tr.source.device_id.toLowerCase().includes(q)) : trackers;
    return [...list].sort((a, b) => a.label.localeCompare(b.label));
  }, [trackers, query]);
  const first = Math.max(0, Math.floor(scroll / ROW) - 5);
  const last = Math.min(shown.length, Math.ceil((scroll + height) / ROW) + 5);
  const focusRow = (i: number) => {
    const el = box.current;
    if (!el) return;
    el.scrollTop = Math.max(0, Math.min(el.scrollTop, i * ROW), (i + 1) * ROW - el.clientHeight);
    requestAnimationFrame(() => el.querySelector<HTMLElement>(`[data-index="${i}"]`)?.focus());
  };
  const onKey = (e: KeyboardEvent, i: number) => {
    if (e.key === 'ArrowDown' && i + 1 < shown.length) focusRow(i + 1);
    else if (e.key === 'ArrowUp' && i > 0) focusRow(i - 1);
    else return;
    e.preventDefault();
  };

  return (
    <section className="tracker-list" aria-labelledby="trackers-heading">
      <div className="list-head">
        <h2 id="trackers-heading">{t('trackers.heading')}</h2>
        <span className="count" aria-live="polite">
          {t('trackers.count', { shown: shown.length, total: trackers.length })}
        </span>
      </div>
      <label htmlFor="tracker-search" className="sr-only">
        {t('trackers.search')}
      </label>
      <input id="tracker-search" type="search" placeholder={t('trackers.searchPlaceholder')} value={query} onChange={(e) => setQuery(e.target.value)} />
      {trackers.length === 0 && <p className="empty">{t('trackers.none')}</p>}
      {trackers.length > 0 && shown.length === 0 && <p className="empty">{t('trackers.empty')}</p>}
      <div
        className="rows"
        ref={(el) => {
          box.current = el;
          if (el && el.clientHeight && el.clientHeight !== height) setHeight(el.clientHeight);
        }}
        onScroll={(e) => setScroll(e.currentTarget.scrollTop)}
      >
        <ul style={{ height: shown.length * ROW }} aria-label={t('trackers.heading')}>
          {shown.slice(first, last).map((tr, k) => {
            const i = first + k;
            const s = states.get(tr.id);
            return (
              <li key={tr.id} style={{ top: i * ROW, height: ROW }}>
                <button type="button" data-index={i} className={tr.id === selected ? 'row selected' : 'row'} aria-pressed={tr.id === selected} onClick={() => onSelect(tr.id)} onKeyDown={(e) => onKey(e, i)}>
                  <span className="name">
                    <span className={`dot dot-${statusOf(s)}`} aria-hidden="true" />
                    {tr.label}
                  </span>
                  <span className="meta">
                    <span>{statusText(s)}</span>
                    {s?.gps.location ? <span>{speedText(s)}</span> : <span>{t('trackers.noPosition')}</span>}
                    {s?.last_update && <span>{s.last_update}</span>}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}
