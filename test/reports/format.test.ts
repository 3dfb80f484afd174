/**
 * Report formatting for the user (issue 12): dates in the user's zone with or without seconds,
 * durations, and distances, speeds and volumes in metric, imperial and US units with the locale's
 * separators; the time filter's windows across weekdays, midnight and a DST change.
 */
import { describe, expect, it } from 'vitest';
import { Formatter } from '../../src/reports/format.ts';
import { inWindows, timeWindows } from '../../src/reports/time-filter.ts';

const f = (measurement_system: 'metric' | 'imperial' | 'us', locale = 'en', time_zone = 'UTC', seconds = true) => new Formatter({ locale, time_zone, measurement_system }, seconds);

describe('Formatter', () => {
  it('dates: yyyy-MM-dd HH:mm:ss in the zone, HH:mm without show_seconds; raw epoch seconds', () => {
    const t = Date.UTC(2026, 6, 1, 22, 30, 15);
    expect(f('metric', 'en', 'Asia/Tokyo').dateTime(t)).toEqual({ v: '2026-07-02 07:30:15', raw: t / 1000, type: 'datetime' });
    expect(f('metric', 'en', 'America/New_York', false).dateTime(t)).toEqual({ v: '2026-07-01 18:30', raw: t / 1000, type: 'datetime' });
  });

  it('durations: H:mm:ss, hours past a day kept; H:mm without seconds', () => {
    expect(f('metric').duration(93_784)).toEqual({ v: '26:03:04', raw: 93_784, type: 'duration' });
    expect(f('metric', 'en', 'UTC', false).duration(59)).toEqual({ v: '0:00', raw: 59, type: 'duration' });
  });

  it('distances, speeds and volumes per measurement system; raw stays in km, km/h and litres', () => {
    expect(f('metric').distance(12_345.67)).toEqual({ v: '12.35 km', raw: 12_345.7, type: 'distance' });
    expect(f('imperial').distance(16_093.44)).toEqual({ v: '10.00 mi', raw: 16_093.4, type: 'distance' });
    expect(f('us').distance(1_609_344)).toEqual({ v: '1,000.00 mi', raw: 1_609_344, type: 'distance' });
    expect(f('metric').speed(88.6)).toEqual({ v: '89 km/h', raw: 88.6, type: 'speed' });
    expect(f('us').speed(100)).toEqual({ v: '62 mph', raw: 100, type: 'speed' });
    expect(f('metric').volume(45.5)).toEqual({ v: '45.5 L', raw: 45.5, type: 'volume' });
    expect(f('imperial').volume(45.4609)).toEqual({ v: '10.0 gal', raw: 45.46, type: 'volume' });
    expect(f('us').volume(37.85411784)).toEqual({ v: '10.0 gal', raw: 37.85, type: 'volume' });
  });

  it('the locale\'s separators and unit names; an unknown locale falls back to English', () => {
    expect(f('metric', 'de').distance(1_234_560).v).toBe('1.234,56 km');
    expect(f('metric', 'ru_RU').speed(50).v).toBe('50 км/ч');
    expect(f('metric', 'xx').distance(1000).v).toBe('1.00 km');
    expect(f('metric', 'de').number(1234.5)).toEqual({ v: '1.234,5', raw: 1234.5, type: 'number' });
  });

  it('places: the address, else coordinates; both with show_coordinates', () => {
    expect(f('metric').location(54.1234567, 25.5, 'Main St 1', false)).toEqual({ v: 'Main St 1', raw: null, type: 'location', location: { lat: 54.1234567, lng: 25.5, address: 'Main St 1' } });
    expect(f('metric').location(54.1234567, 25.5, 'Main St 1', true).v).toBe('Main St 1 (54.123457, 25.5)');
    expect(f('metric').location(54.1234567, 25.5, '', false)).toEqual({ v: '54.123457, 25.5', raw: null, type: 'location', location: { lat: 54.1234567, lng: 25.5 } });
  });
});

describe('time filter windows', () => {
  const utc = (d: number, h: number, m = 0, s = 0) => Date.UTC(2026, 10, d, h, m, s);

  it('the hours of the weekdays given, `to` naming its whole minute, clipped to the period', () => {
    // 2026-11-16 is a Monday.
    const w = timeWindows(utc(16, 10), utc(22, 23, 59, 59), { from: '08:00', to: '18:00', weekdays: [1, 3] }, 'UTC');
    expect(w).toEqual([
      [utc(16, 10), utc(16, 18, 0, 59) + 999],
      [utc(18, 8), utc(18, 18, 0, 59) + 999],
    ]);
    expect(inWindows(w, utc(18, 12))).toBe(true);
    expect(inWindows(w, utc(17, 12))).toBe(false);
    expect(inWindows(null, 0)).toBe(true);
  });

  it('a window running past midnight starts on the weekday given', () => {
    const w = timeWindows(utc(20, 0), utc(22, 0), { from: '22:00:00', to: '06:00:00', weekdays: [5] }, 'UTC');
    expect(w).toEqual([[utc(20, 22), utc(21, 6) + 999]]);
  });

  it('wall times of the user\'s zone, across a DST change', () => {
    // Europe/Berlin leaves summer time on 2026-10-25 (a Sunday): 09:00 is 07:00 UTC before, 08:00 UTC after.
    const w = timeWindows(Date.UTC(2026, 9, 24), Date.UTC(2026, 9, 26, 23), { from: '09:00', to: '10:00', weekdays: [6, 7, 1] }, 'Europe/Berlin');
    expect(w.map(([a]) => new Date(a).toISOString())).toEqual(['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']);
  });
});
