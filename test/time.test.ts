/** User time zones: formatting and parsing `yyyy-MM-dd HH:mm:ss` against Intl, across DST changes. */
import { describe, expect, it } from 'vitest';
import { formatDateTime, isoDuration, parseDateTime } from '../src/core/time.ts';

const viaIntl = (ms: number, tz: string) => {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
};

describe('formatDateTime', () => {
  it('agrees with Intl around DST changes and odd offsets', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'America/St_Johns', 'Pacific/Chatham'];
    const starts = [Date.UTC(2026, 2, 8), Date.UTC(2026, 2, 29), Date.UTC(2026, 9, 25), Date.UTC(2026, 3, 5), Date.UTC(2026, 10, 1)];
    for (const tz of zones) for (const s of starts) for (let ms = s - 6 * 3600e3; ms < s + 6 * 3600e3; ms += 7 * 60e3 + 13e3) expect(formatDateTime(ms, tz), `${tz} ${new Date(ms).toISOString()}`).toBe(viaIntl(ms, tz));
  });
});

describe('parseDateTime', () => {
  it('round-trips wall times in the zone', () => {
    expect(parseDateTime('2026-07-01 12:00:00', 'Europe/Berlin')).toBe(Date.UTC(2026, 6, 1, 10));
    expect(parseDateTime('2026-01-01 12:00:00', 'America/New_York')).toBe(Date.UTC(2026, 0, 1, 17));
    expect(formatDateTime(parseDateTime('2026-03-29 03:30:00', 'Europe/Berlin')!, 'Europe/Berlin')).toBe('2026-03-29 03:30:00');
  });
  it('refuses malformed and impossible dates', () => {
    for (const s of ['2026-02-30 00:00:00', '2026-13-01 00:00:00', '2026-01-01 24:00:00', '2026-01-01T00:00:00', '']) expect(parseDateTime(s, 'UTC')).toBeUndefined();
  });
});

describe('isoDuration', () => {
  it('formats whole seconds', () => {
    expect(isoDuration(5 * 60_000)).toBe('PT5M');
    expect(isoDuration(252_000)).toBe('PT4M12S');
    expect(isoDuration(0)).toBe('PT0S');
    expect(isoDuration(90_061_000)).toBe('P1DT1H1M1S');
    expect(isoDuration(31 * 86_400_000)).toBe('P31D');
  });
});
