/**
 * What a spreadsheet cell holds for a report cell (src/reports/model.ts, CellType): the number the
 * displayed text `v` shows and a number format that shows it the same way. Plugins format `v` in the
 * user's locale and measurement system (12.35 km, 7,7 mi, 850 m); the raw value is in base units
 * (metres, km/h, litres). The unit is found by asking which unit turns `raw` into the number of `v`
 * at `v`'s precision, so the spreadsheet value equals what `v` shows (and sums add up as displayed).
 */
import type { Cell, MeasurementSystem } from '../model.ts';

/** Base units per display unit, the unit the measurement system prefers first. */
const UNITS: Record<'distance' | 'speed' | 'volume', Record<MeasurementSystem, number[]>> = {
  // metres per: km, m / mi, ft, yd, nautical mile
  distance: { metric: [1000, 1, 1852], imperial: [1609.344, 0.3048, 0.9144, 1852], us: [1609.344, 0.3048, 0.9144, 1852] },
  // km/h per: km/h, m/s / mph, knot
  speed: { metric: [1, 3.6, 1.852], imperial: [1.609344, 1.852, 1], us: [1.609344, 1.852, 1] },
  // litres per: litre / imperial gallon / US gallon
  volume: { metric: [1, 4.54609, 3.785411784], imperial: [4.54609, 1, 3.785411784], us: [3.785411784, 1, 4.54609] },
};

export interface DisplayedNumber {
  value: number;
  decimals: number;
  grouped: boolean;
  /** Text around the number in `v` ("", " km", "%"), kept by the number format. */
  prefix: string;
  suffix: string;
}

const patterns = new Map<string, RegExp>();

/** The number pattern of a locale: its group and decimal separators (Intl), built once per locale. */
function numberPattern(locale: string): RegExp {
  let re = patterns.get(locale);
  if (!re) {
    let parts: Intl.NumberFormatPart[];
    try {
      parts = new Intl.NumberFormat(locale.replace('_', '-')).formatToParts(12345.6);
    } catch {
      parts = new Intl.NumberFormat('en').formatToParts(12345.6);
    }
    const group = parts.find((p) => p.type === 'group')?.value ?? ',';
    const decimal = parts.find((p) => p.type === 'decimal')?.value ?? '.';
    // Group separators may be narrow no-break spaces; plain spaces and no-break spaces are read alike.
    const groups = [...new Set([group, ' ', '\u00a0', '\u202f'].filter((g) => g !== decimal))].map(escape).join('|');
    re = new RegExp(`^(.*?)(-|\u2212)?(\\d{1,3}(?:(?:${groups})\\d{3})+|\\d+)(?:${escape(decimal)}(\\d+))?(.*)$`, 's');
    patterns.set(locale, re);
  }
  return re;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first number in `v` as the locale writes it (group and decimal separators), or undefined. */
export function displayedNumber(v: string, locale: string): DisplayedNumber | undefined {
  const m = numberPattern(locale).exec(v);
  if (!m) return undefined;
  const int = m[3].replace(/\D/g, '');
  const frac = m[4] ?? '';
  const value = Number(`${m[2] ? '-' : ''}${int}${frac ? `.${frac}` : ''}`);
  if (!Number.isFinite(value)) return undefined;
  return { value, decimals: frac.length, grouped: int.length !== m[3].length, prefix: m[1], suffix: m[5] };
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/** The factor (base units per shown unit) that makes raw read as `shown`; the system's first unit otherwise. */
function unitFactor(kind: keyof typeof UNITS, raw: number, shown: DisplayedNumber | undefined, system: MeasurementSystem): number {
  const candidates = UNITS[kind][system] ?? UNITS[kind].metric;
  if (shown) {
    const tolerance = 0.5 * 10 ** -shown.decimals + 1e-9;
    for (const f of candidates) if (Math.abs(Math.abs(raw / f) - Math.abs(shown.value)) <= tolerance) return f;
  }
  return candidates[0];
}

/** Literal text of a number format. (Top level: a closure made per call costs a keepNames call under tsx.) */
const quote = (s: string) => (s ? `"${s.replace(/"/g, '')}"` : '');

/** Number format that writes a number with `decimals` places (grouped or not) between prefix and suffix. */
export function numberFormat(decimals: number, grouped: boolean, prefix = '', suffix = '', percent = false): string {
  const digits = `${grouped ? '#,##0' : '0'}${decimals > 0 ? `.${'0'.repeat(decimals)}` : ''}${percent ? '%' : ''}`;
  return `${quote(prefix)}${digits}${quote(percent ? suffix.replace(/^\s*%/, '') : suffix)}`;
}

export interface SheetNumber {
  value: number;
  format: string;
}

/**
 * The spreadsheet number of a number, distance, speed, volume or percent cell; undefined when it has
 * none (raw null: the cell stays text).
 */
export function sheetNumber(cell: Cell, locale: string, system: MeasurementSystem): SheetNumber | undefined {
  if (cell.raw === null || !Number.isFinite(cell.raw)) return undefined;
  const shown = displayedNumber(cell.v, locale);
  const decimals = shown?.decimals ?? (Number.isInteger(cell.raw) ? 0 : 2);
  const grouped = shown?.grouped ?? false;
  const prefix = shown?.prefix.trim() ? shown.prefix : '';
  const suffix = shown?.suffix ?? '';
  switch (cell.type) {
    case 'number':
      return { value: round(cell.raw, decimals), format: numberFormat(decimals, grouped, prefix, suffix) };
    case 'percent':
      // A spreadsheet percent is a fraction shown times 100.
      return { value: round(cell.raw, decimals) / 100, format: numberFormat(decimals, grouped, prefix, suffix.includes('%') ? suffix : '', true) };
    case 'distance':
    case 'speed':
    case 'volume': {
      const f = unitFactor(cell.type, cell.raw, shown, system);
      return { value: round(cell.raw / f, decimals), format: numberFormat(decimals, grouped, prefix, suffix) };
    }
    default:
      return undefined;
  }
}
