/**
 * Times: stored as UTC instants (ms); shown and parsed as `yyyy-MM-dd HH:mm:ss` in the user's
 * time zone. Node's Intl has full ICU, so any IANA zone works; formatters are cached per zone.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(tz, f);
  }
  return f;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

function wallParts(ms: number, tz: string) {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return p as { year: number; month: number; day: number; hour: number; minute: number; second: number };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

const QUARTER = 15 * 60_000;
/** Offsets per zone and quarter hour: zone transitions fall on quarter hours, so within one the offset is fixed. */
const quarterOffsets = new Map<string, Map<number, number | null>>();

/** Offset of `tz` at `ms` (ms), from the quarter-hour cache when the quarter holds no transition. */
function cachedOffset(ms: number, tz: string): number {
  let zone = quarterOffsets.get(tz);
  if (!zone) quarterOffsets.set(tz, (zone = new Map()));
  const q = Math.floor(ms / QUARTER);
  let off = zone.get(q);
  if (off === undefined) {
    const a = offsetAt(q * QUARTER, tz);
    off = a === offsetAt((q + 1) * QUARTER - 1000, tz) ? a : null;
    if (zone.size > 100_000) zone.clear();
    zone.set(q, off);
  }
  return off ?? offsetAt(ms, tz);
}

/** The wall-clock time of the instant in the zone, to the second, as ms whose UTC fields are that time. */
export function wallClockMs(ms: number, tz: string): number {
  return Math.floor((ms + cachedOffset(ms, tz)) / 1000) * 1000;
}

/** `yyyy-MM-dd HH:mm:ss` of the instant in the zone. */
export function formatDateTime(ms: number, tz: string): string {
  const d = new Date(ms + cachedOffset(ms, tz));
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** Offset of the zone from UTC at the instant, ms. */
function offsetAt(ms: number, tz: string): number {
  const p = wallParts(ms, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Parse `yyyy-MM-dd HH:mm:ss` as wall time in the zone; undefined when malformed or impossible. */
export function parseDateTime(s: string, tz: string): number | undefined {
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
  const wall = Date.UTC(y, mo - 1, d, h, mi, se);
  const back = new Date(wall);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || se > 59) return undefined;
  // Two passes settle the offset across DST changes.
  let ms = wall - offsetAt(wall, tz);
  ms = wall - offsetAt(ms, tz);
  return ms;
}

/** ISO 8601 duration of whole seconds, e.g. PT4M12S. */
export function isoDuration(ms: number): string {
  let s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const time = `${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!d && !h && !m) ? `${s}S` : ''}`;
  return `P${d ? `${d}D` : ''}${time ? `T${time}` : ''}`;
}

/** The calendar day (`yyyy-MM-dd`) `n` days after `day`: calendar arithmetic, no zone involved. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** The first day of the month `n` months after the month of `day`. */
export function addMonths(day: string, n: number): string {
  const [y, m] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1 + n, 1)).toISOString().slice(0, 10);
}

/** ISO weekday of a calendar day: Monday 1 .. Sunday 7. */
export function isoWeekday(day: string): number {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay() || 7;
}

/**
 * A text per whole second, made once for every instant of that second (a bounded memo): encoders of
 * many fixes that share seconds (a fleet's trackers report at the same moments) format each second once.
 */
export class SecondText {
  private memo = new Map<number, string>();
  constructor(
    /** The text of the second starting at `ms` (a whole second, ms UTC). */
    private format: (ms: number) => string,
    private max = 4096,
  ) {}

  /** The text of the second that holds `ms`. */
  of(ms: number): string {
    const second = Math.floor(ms / 1000);
    let text = this.memo.get(second);
    if (text === undefined) {
      text = this.format(second * 1000);
      if (this.memo.size >= this.max) this.memo.clear();
      this.memo.set(second, text);
    }
    return text;
  }
}
