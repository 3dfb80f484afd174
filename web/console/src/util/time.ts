/**
 * Times as the API shows them: `yyyy-MM-dd HH:mm:ss` in the user's time zone (docs/api.md). The
 * console compares and shifts them as naive wall-clock times, which is exact within one zone.
 */
export type WallTime = string;

/** Wall-clock milliseconds of an API time (as if it were UTC: only differences are meaningful). */
export function wallMs(t: WallTime): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(t);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN;
}

export function wallString(ms: number): WallTime {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Now, as a wall-clock time in `timeZone`. */
export function nowIn(timeZone: string, now = Date.now()): WallTime {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(now);
  } catch {
    return wallString(now);
  }
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** The value of an <input type="datetime-local"> and back. */
export const toInput = (t: WallTime) => t.slice(0, 16).replace(' ', 'T');
export const fromInput = (v: string): WallTime => `${v.replace('T', ' ')}:00`.slice(0, 19);
