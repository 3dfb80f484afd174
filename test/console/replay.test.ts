/** The console's replay arithmetic and API times (web/console/src/screens/history/replay.ts, util/time.ts). */
import { expect, test } from 'vitest';
import type { TrackPoint, Trip } from '../../web/console/src/api/types.ts';
import { positionAt, stopsBetween, timed } from '../../web/console/src/screens/history/replay.ts';
import { fromInput, nowIn, toInput, wallMs, wallString } from '../../web/console/src/util/time.ts';

const pt = (get_time: string, lat: number, lng: number, speed = 30): TrackPoint => ({ lat, lng, alt: 0, satellites: 8, get_time, heading: 90, speed, address: '' });
const points = timed([pt('2026-05-01 10:00:10', 54, 25.1), pt('2026-05-01 10:00:00', 54, 25), pt('2026-05-01 10:10:00', 54.1, 25.2, 0)]);

test('positions between points are interpolated by time; outside the track, its ends', () => {
  expect(points.map((p) => p.get_time)).toEqual(['2026-05-01 10:00:00', '2026-05-01 10:00:10', '2026-05-01 10:10:00']);
  const mid = positionAt(points, wallMs('2026-05-01 10:00:05'))!;
  expect(mid.lat).toBe(54);
  expect(mid.lng).toBeCloseTo(25.05, 10);
  expect(mid.point.get_time).toBe('2026-05-01 10:00:10'); // halfway: the later point's readings
  expect(positionAt(points, wallMs('2026-05-01 09:00:00'))).toMatchObject({ lat: 54, lng: 25 });
  expect(positionAt(points, wallMs('2026-05-01 11:00:00'))).toMatchObject({ lat: 54.1, lng: 25.2 });
  expect(positionAt([], 0)).toBeNull();
});

test('a stop lies between two trips, where the first one ended', () => {
  const trips: Trip[] = [
    { id: 2, type: 'regular', start_date: '2026-05-01 10:05:00', end_date: '2026-05-01 10:10:00', start_address: '', end_address: '' },
    { id: 1, type: 'regular', start_date: '2026-05-01 10:00:00', end_date: '2026-05-01 10:00:10', start_address: '', end_address: '' },
    { id: 3, type: 'single_report', start_date: '2026-05-01 10:07:00', start_address: '' },
  ];
  expect(stopsBetween(trips, points)).toEqual([{ start: '2026-05-01 10:00:10', end: '2026-05-01 10:05:00', lat: 54, lng: 25.1 }]);
});

test('API times: wall-clock arithmetic, the user zone, date inputs', () => {
  expect(wallString(wallMs('2026-12-31 23:59:30') + 60_000)).toBe('2027-01-01 00:00:30');
  expect(nowIn('Asia/Tokyo', Date.UTC(2026, 0, 1, 20, 0, 0))).toBe('2026-01-02 05:00:00');
  expect(nowIn('Not/AZone', Date.UTC(2026, 0, 1, 20, 0, 0))).toBe('2026-01-01 20:00:00');
  expect(toInput('2026-01-02 05:00:00')).toBe('2026-01-02T05:00');
  expect(fromInput('2026-01-02T05:00')).toBe('2026-01-02 05:00:00');
});
