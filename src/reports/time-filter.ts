/**
 * `time_filter` of report/tracker/generate: the times of day (`from`..`to`, in the user's zone; `to`
 * before `from` runs past midnight) on the weekdays given (1 = Monday .. 7 = Sunday). The period
 * becomes a list of windows; a plugin keeps what starts inside one (docs/reports.md). Wall times are
 * turned into instants by the core's Intl-based parser, never by offset arithmetic of our own.
 */
import { addDays, formatDateTime, isoWeekday, parseDateTime } from '../core/time.ts';
import type { TimeFilter } from './model.ts';

export type Window = [number, number];

const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;

/** `HH:mm` or `HH:mm:ss`; false otherwise. */
export const isTimeOfDay = (s: string): boolean => TIME_OF_DAY.test(s);

/** Windows of [from, to] the filter lets through, in time order (clipped to the period). */
export function timeWindows(from: number, to: number, filter: TimeFilter, tz: string): Window[] {
  const start = filter.from.length === 5 ? `${filter.from}:00` : filter.from;
  // `to` names its whole minute (18:00 lets 18:00:59 through) unless seconds are given.
  const endSeconds = filter.to.length === 5;
  const end = endSeconds ? `${filter.to}:59` : filter.to;
  const overnight = end < start;
  const out: Window[] = [];
  // From the day before `from` (its overnight window may reach into the period) to the day of `to`.
  let date = formatDateTime(from - 86_400_000, tz).slice(0, 10);
  const last = formatDateTime(to, tz).slice(0, 10);
  for (;;) {
    if (filter.weekdays.includes(isoWeekday(date))) {
      const a = parseDateTime(`${date} ${start}`, tz);
      const b = parseDateTime(`${overnight ? addDays(date, 1) : date} ${end}`, tz);
      if (a !== undefined && b !== undefined) {
        const w: Window = [Math.max(a, from), Math.min(b + 999, to)];
        if (w[0] <= w[1]) out.push(w);
      }
    }
    if (date >= last) break;
    date = addDays(date, 1);
  }
  return out;
}

/** Whether the instant is inside one of the windows (null windows: no filter). */
export function inWindows(windows: Window[] | null, t: number): boolean {
  if (!windows) return true;
  let lo = 0;
  let hi = windows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (t < windows[mid][0]) hi = mid - 1;
    else if (t > windows[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}
