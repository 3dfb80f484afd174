/**
 * checkin/list with `format` (spec: Check-ins; docs/checkins.md, "Files"): the listed check-ins as a
 * report body (src/reports/model.ts) with one table, which the report renderers turn into a PDF or
 * xlsx file. Pure: the caller reads the check-ins, their files and labels and passes them in.
 */
import { formatDateTime } from '../core/time.ts';
import type { Cell, LocaleInfo, MeasurementSystem, ReportBody } from '../reports/model.ts';

export interface CheckinLine {
  /** marker_time, ms UTC. */
  time: number;
  tracker: string;
  employee: string | null;
  lat: number;
  lng: number;
  address: string;
  comment: string | null;
  form: string | null;
  /** The check-in's files: name and download URL (null until uploaded). */
  files: Array<{ name: string; url: string | null }>;
}

export interface ExportContext {
  /** Now, ms UTC: the file's creation time. */
  now: number;
  locale: string;
  timeZone: string;
  measurementSystem: string;
  /** The listed period (ms UTC), when the call named one. */
  from?: number;
  to?: number;
}

const text = (v: string): Cell => ({ v, raw: null, type: 'text' });

export function localeInfo(o: { locale: string; timeZone: string; measurementSystem: string }): LocaleInfo {
  const system: MeasurementSystem = o.measurementSystem === 'imperial' || o.measurementSystem === 'us' ? o.measurementSystem : 'metric';
  return { locale: o.locale, time_zone: o.timeZone, measurement_system: system };
}

/** One line per file: its name and where to download it. */
export const fileLines = (files: CheckinLine['files']) => files.map((f) => (f.url ? `${f.name} ${f.url}` : `${f.name} (not uploaded)`)).join('\n');

export function checkinsReport(lines: CheckinLine[], o: ExportContext): ReportBody {
  const tz = o.timeZone;
  const when = (ms: number | undefined, fallback: string) => (ms === undefined ? fallback : formatDateTime(ms, tz));
  return {
    id: 0,
    title: 'Check-ins',
    created: formatDateTime(o.now, tz),
    from: when(o.from ?? (lines.length ? Math.min(...lines.map((l) => l.time)) : undefined), ''),
    to: when(o.to ?? (lines.length ? Math.max(...lines.map((l) => l.time)) : undefined), ''),
    time_filter: null,
    locale_info: localeInfo(o),
    sheets: [
      {
        header: 'Check-ins',
        entity_ids: [],
        sections: [
          {
            type: 'table',
            header: `Check-ins: ${lines.length}`,
            columns: [
              { field: 'time', title: 'Time', weight: 3 },
              { field: 'tracker', title: 'Tracker', weight: 2 },
              { field: 'employee', title: 'Employee', weight: 2 },
              { field: 'location', title: 'Location', weight: 4 },
              { field: 'comment', title: 'Comment', weight: 3 },
              { field: 'form', title: 'Form', weight: 2 },
              { field: 'files', title: 'Files', weight: 3 },
            ],
            rows: lines.map((l) => ({
              type: 'data' as const,
              data: {
                time: { v: formatDateTime(l.time, tz), raw: Math.floor(l.time / 1000), type: 'datetime' as const },
                tracker: text(l.tracker),
                employee: text(l.employee ?? ''),
                location: { v: l.address || `${l.lat}, ${l.lng}`, raw: null, type: 'location' as const, location: { lat: l.lat, lng: l.lng, address: l.address } },
                comment: text(l.comment ?? ''),
                form: text(l.form ?? ''),
                files: text(fileLines(l.files)),
              },
            })),
          },
        ],
      },
    ],
  };
}
