/**
 * A report body with every cell type, a map_table with a track, Cyrillic and Greek text and total
 * rows: what the renderer tests (xlsx, pdf, csv, the pool) draw and read back.
 */
import type { Cell, ReportBody } from '../../src/reports/model.ts';

const text = (v: string): Cell => ({ v, raw: null, type: 'text' });
/** 2026-03-02 08:15:30 in Europe/Vilnius (UTC+2 in March). */
export const START = Date.UTC(2026, 2, 2, 6, 15, 30) / 1000;

/** A track around Vilnius, zig-zagging north-east (about 200 points). */
export const TRACK: Array<[number, number]> = Array.from({ length: 200 }, (_, i) => [54.68 + i * 0.0005 + (i % 20 < 10 ? 0.001 : 0) * (i % 10), 25.27 + i * 0.0008]);

export function fixtureReport(over: Partial<ReportBody> = {}): ReportBody {
  const trip = (i: number) => ({
    type: 'data' as const,
    data: {
      start: { v: `2026-03-02 ${String(8 + i).padStart(2, '0')}:15:30`, raw: START + i * 3600, type: 'datetime' as const },
      day: { v: '2026-03-02', raw: Date.UTC(2026, 2, 1, 22) / 1000, type: 'date' as const },
      from: { v: 'Гедимино пр. 1, Вильнюс', raw: null, type: 'location' as const, location: { lat: 54.687, lng: 25.28, address: 'Гедимино пр. 1, Вильнюс' } },
      length: { v: `${(12.35 + i).toFixed(2)} km`, raw: 12_345 + i * 1000, type: 'distance' as const },
      duration: { v: '1:02:03', raw: 3723, type: 'duration' as const },
      speed: { v: '61 km/h', raw: 61.2, type: 'speed' as const },
      fuel: { v: '7.5 l', raw: 7.48, type: 'volume' as const },
      load: { v: '45.5%', raw: 45.5, type: 'percent' as const },
      stops: { v: String(3 + i), raw: 3 + i, type: 'number' as const },
      note: text(i === 0 ? 'Καλημέρα, οδηγός' : 'Zażółć gęślą jaźń'),
    },
  });
  return {
    id: 41,
    title: 'Поездки — Trips',
    created: '2026-03-03 10:00:00',
    from: '2026-03-02 00:00:00',
    to: '2026-03-02 23:59:59',
    time_filter: null,
    locale_info: { locale: 'en', time_zone: 'Europe/Vilnius', measurement_system: 'metric' },
    sheets: [
      {
        header: 'Грузовик 7 / Van: [north]',
        entity_ids: [7],
        sections: [
          {
            type: 'map_table',
            header: 'Поездки',
            columns: [
              { field: 'start', title: 'Начало', weight: 2 },
              { field: 'day', title: 'Day', weight: 1 },
              { field: 'from', title: 'From', weight: 3 },
              { field: 'length', title: 'Length', weight: 1 },
              { field: 'duration', title: 'Duration', weight: 1 },
              { field: 'speed', title: 'Max speed', weight: 1 },
              { field: 'fuel', title: 'Fuel', weight: 1 },
              { field: 'load', title: 'Load', weight: 1 },
              { field: 'stops', title: 'Stops', weight: 1 },
              { field: 'note', title: 'Σημείωση', weight: 2 },
            ],
            rows: [
              trip(0),
              trip(1),
              {
                type: 'total',
                data: {
                  start: text('Total'),
                  length: { v: '25.69 km', raw: 25_690, type: 'distance' },
                  duration: { v: '2:04:06', raw: 7446, type: 'duration' },
                  stops: { v: '7', raw: 7, type: 'number' },
                },
              },
            ],
            track: TRACK,
          },
          {
            type: 'text',
            header: 'Summary',
            data: [
              { k: 'Total distance', v: { v: '25.69 km', raw: 25_690, type: 'distance' } },
              { k: 'Водитель', v: text('Иван Петров') },
            ],
          },
        ],
      },
      {
        header: 'Грузовик 7 / Van: [north]',
        entity_ids: [8],
        sections: [{ type: 'table', header: 'Stops', columns: [{ field: 'n', title: 'Note', weight: 1 }], rows: [{ type: 'data', data: { n: text('Ελληνικά και кириллица') } }] }],
      },
    ],
    ...over,
  };
}
