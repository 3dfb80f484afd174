/**
 * Report cells formatted for the user (issue 12): dates in the user's time zone as every time of the
 * API (`yyyy-MM-dd HH:mm:ss`, or without seconds unless show_seconds), durations, and distances,
 * speeds and volumes in the user's measurement system (metric: km, km/h, l; imperial: mi, mph,
 * imperial gal; us: mi, mph, US gal), numbers with the locale's separators. Intl does the zone and
 * number work; the raw value of every cell stays in the base unit (model.ts).
 */
import { formatDateTime } from '../core/time.ts';
import type { Cell, LocaleInfo, MeasurementSystem } from './model.ts';

export const KM_PER_MILE = 1.609344;
export const L_PER_GAL: Record<MeasurementSystem, number> = { metric: 1, imperial: 4.54609, us: 3.785411784 };

/** A locale Intl accepts: the user's, else English. */
export function usableLocale(locale: string): string {
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale.replace('_', '-')])[0] ?? 'en';
  } catch {
    return 'en';
  }
}

export class Formatter {
  readonly locale: string;
  private readonly units: Record<'distance' | 'speed' | 'volume', Intl.NumberFormat>;
  private readonly plain: Intl.NumberFormat;

  constructor(
    readonly info: LocaleInfo,
    readonly showSeconds: boolean,
  ) {
    this.locale = usableLocale(info.locale);
    const metric = info.measurement_system === 'metric';
    const unit = (u: string, digits: number) => new Intl.NumberFormat(this.locale, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: digits, minimumFractionDigits: digits });
    this.units = {
      distance: unit(metric ? 'kilometer' : 'mile', 2),
      speed: unit(metric ? 'kilometer-per-hour' : 'mile-per-hour', 0),
      volume: unit(metric ? 'liter' : 'gallon', 1),
    };
    this.plain = new Intl.NumberFormat(this.locale, { maximumFractionDigits: 6 });
  }

  /** `yyyy-MM-dd HH:mm:ss` (or `HH:mm`) in the report's zone; raw: epoch seconds. */
  dateTime(ms: number): Cell {
    const s = formatDateTime(ms, this.info.time_zone);
    return { v: this.showSeconds ? s : s.slice(0, 16), raw: Math.floor(ms / 1000), type: 'datetime' };
  }

  /** `H:mm:ss` (or `H:mm`), hours beyond 24 kept; raw: seconds. */
  duration(seconds: number): Cell {
    const s = Math.max(0, Math.round(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = s % 60;
    const mm = String(m).padStart(2, '0');
    return { v: this.showSeconds ? `${h}:${mm}:${String(sec).padStart(2, '0')}` : `${h}:${mm}`, raw: s, type: 'duration' };
  }

  /** raw: metres. */
  distance(m: number): Cell {
    const km = m / 1000;
    return { v: this.units.distance.format(this.info.measurement_system === 'metric' ? km : km / KM_PER_MILE), raw: round(m, 1), type: 'distance' };
  }

  /** raw: km/h. */
  speed(kmh: number): Cell {
    return { v: this.units.speed.format(this.info.measurement_system === 'metric' ? kmh : kmh / KM_PER_MILE), raw: round(kmh, 1), type: 'speed' };
  }

  /** raw: litres. */
  volume(l: number): Cell {
    return { v: this.units.volume.format(l / L_PER_GAL[this.info.measurement_system]), raw: round(l, 2), type: 'volume' };
  }

  /** raw: 0..100. */
  percent(x: number): Cell {
    return { v: new Intl.NumberFormat(this.locale, { style: 'unit', unit: 'percent', maximumFractionDigits: 1 }).format(x), raw: round(x, 2), type: 'percent' };
  }

  number(n: number): Cell {
    return { v: this.plain.format(n), raw: n, type: 'number' };
  }

  text(s: string): Cell {
    return { v: s, raw: null, type: 'text' };
  }

  /** The address when known, else "lat, lng"; with `coordinates` both. */
  location(lat: number, lng: number, address: string, coordinates: boolean): Cell {
    const ll = `${round(lat, 6)}, ${round(lng, 6)}`;
    const v = !address ? ll : coordinates ? `${address} (${ll})` : address;
    return { v, raw: null, type: 'location', location: address ? { lat, lng, address } : { lat, lng } };
  }
}

const round = (x: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
