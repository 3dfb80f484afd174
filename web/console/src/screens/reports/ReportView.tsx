/**
 * A retrieved report in the page: its sheets (a tracker's, or the summary) as buttons, the chosen
 * sheet's sections as tables: a table's columns, rows and total line; a key/value summary as a
 * two-column table.
 */
import { useCallback, useEffect, useState } from 'react';
import * as maplibregl from 'maplibre-gl';
import type { Map as MlMap } from 'maplibre-gl';
import type { ReportObject, ReportSection } from '../../api/types.ts';
import { t } from '../../i18n/i18n.ts';
import { MapCanvas } from '../../map/MapCanvas.tsx';
import { addTrackLine, setTrackLine } from '../../map/track-line.ts';

export function ReportView({ report }: { report: ReportObject }) {
  const [sheet, setSheet] = useState(0);
  const current = report.sheets[Math.min(sheet, report.sheets.length - 1)];
  return (
    <article className="report" aria-labelledby="report-title">
      <h2 id="report-title">{report.title}</h2>
      <p className="sub">{t('reports.period', { from: report.from, to: report.to })}</p>
      {report.sheets.length > 1 && (
        <div className="sheets" role="group" aria-label={t('reports.sheets')}>
          {report.sheets.map((s, i) => (
            <button key={i} type="button" aria-pressed={s === current} onClick={() => setSheet(i)}>
              {s.header}
            </button>
          ))}
        </div>
      )}
      {!current ? (
        <p className="empty">{t('reports.emptyReport')}</p>
      ) : (
        <>
          {report.sheets.length === 1 && <h3>{current.header}</h3>}
          <SheetTrack track={current.sections.find((x) => x.type === 'map_table' && x.track && x.track.length > 1)} />
          {current.sections.map((s, i) => (
            <Section key={`${sheet}-${i}`} section={s} />
          ))}
          {current.sections.length === 0 && <p className="empty">{t('reports.emptySheet')}</p>}
        </>
      )}
    </article>
  );
}

/** A sheet's track (trips, points: the `track` of its map_table) on a map, framed to fit. */
function SheetTrack({ track: section }: { track: ReportSection | undefined }) {
  const [map, setMap] = useState<MlMap | null>(null);
  const onReady = useCallback((m: MlMap) => {
    addTrackLine(m);
    setMap(m);
  }, []);
  const track = section?.type === 'map_table' ? section.track : undefined;
  useEffect(() => {
    if (!map || !track) return;
    const line = track.map(([lat, lng]) => [lng, lat] as [number, number]);
    setTrackLine(map, line);
    const b = new maplibregl.LngLatBounds();
    for (const p of line) b.extend(p);
    map.fitBounds(b, { padding: 40, maxZoom: 15, duration: 0 });
  }, [map, track]);
  if (!track) return null;
  return (
    <div className="report-map">
      <MapCanvas label={t('reports.trackMap')} onReady={onReady} />
    </div>
  );
}

function Section({ section: s }: { section: ReportSection }) {
  if (s.type === 'map_table') {
    if (!s.rows.length) return null;
    return (
      <table className="report-table summary">
        <caption>{s.header}</caption>
        <tbody>
          {s.rows.map((r, i) => (
            <tr key={i}>
              <th scope="row">{r.name}</th>
              <td>{r.v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  const rows = s.data.flatMap((g) => g.rows);
  const total = s.data.find((g) => g.total)?.total ?? null;
  return (
    <div className="table-wrap">
      <table className="report-table">
        <caption>{s.header}</caption>
        <thead>
          <tr>
            {s.columns.map((c) => (
              <th key={c.field} scope="col" className={cellClass(c.align)}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {s.columns.map((c) => (
                <td key={c.field} className={cellClass(c.align, r[c.field]?.v)}>
                  {r[c.field]?.v ?? ''}
                </td>
              ))}
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={s.columns.length} className="empty">
                {t('reports.noRows')}
              </td>
            </tr>
          )}
        </tbody>
        {total && (
          <tfoot>
            <tr>
              {s.columns.map((c, i) => {
                const cell = total[c.field];
                return (
                  <td key={c.field} className={cellClass(c.align)}>
                    {cell && typeof cell === 'object' ? cell.v : i === 0 ? total.text : ''}
                  </td>
                );
              })}
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}

/** Numbers right-aligned; times (`yyyy-MM-dd HH:mm`) kept on one line. */
function cellClass(align: 'left' | 'right', v?: string): string | undefined {
  if (align === 'right') return 'num';
  return v && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(v) ? 'nowrap' : undefined;
}
