/**
 * Deterministic synthetic journeys with their ground truth (issue 5 tests): a chain of steps makes
 * the Points a tracker would send, and records the trips, parkings, single reports and geofence
 * visits they must give under the default settings (docs/telemetry.md).
 *
 *   const { points, truth } = journey({ lat: 52.52, lng: 13.40, time: Date.UTC(2024, 0, 1, 8) })
 *     .drive({ km: 10, kmh: 50 }).stop({ minutes: 10 }).drive({ km: 5, kmh: 40 })
 *     .enterCircle({ lat: 52.6, lng: 13.4, radiusM: 200 }, { minutes: 7, kmh: 40 }).drive({ km: 2, kmh: 30 })
 *     .build();
 *
 * Ground truth assumes stops clearly shorter or longer than the parking minimum, and report runs
 * that do not start inside an open parking's radius. Other end-to-end tests drive these points
 * through the real gateway, so this file depends on nothing but the telemetry types and geodesy.
 */
import type { Point } from '../../src/telemetry/types.ts';
import { destination, distanceKm as haversineKm } from '../../src/core/geo.ts';

export interface JourneyOptions {
  /** Points carry ignition (on while driving or stopped, off in stops with ignitionOff). */
  ignition?: boolean;
  parkingMinSeconds?: number;
}

export interface TruthTrip {
  start: number;
  end: number;
  lengthKm: number;
  /** Moving time, ms (length / moving time = average speed). */
  movingMs: number;
  open?: boolean;
}

export interface TruthParking {
  start: number;
  end: number;
  open?: boolean;
}

export interface Circle {
  lat: number;
  lng: number;
  radiusM: number;
}

export interface Truth {
  trips: TruthTrip[];
  parkings: TruthParking[];
  /** Times of the single reports. */
  singles: number[];
  /** Kilometres driven in trips. */
  totalKm: number;
  /** Per circle of enterCircle (same order): stays inside, by brute force over the points. */
  visits: Array<Array<{ enter: number; exit: number | null }>>;
}

export interface DriveStep {
  km: number;
  kmh: number;
  /** Seconds between points (default 1). */
  every?: number;
  /** Degrees (default: keep the current heading, north at first). */
  bearing?: number;
}

export interface StopStep {
  minutes: number;
  /** Seconds between points (default 10). */
  every?: number;
  ignitionOff?: boolean;
}

export interface ReportsStep {
  count: number;
  /** Minutes between reports: must exceed the interval-mode gap (default 60). */
  everyMinutes?: number;
  /** Metres moved between reports, along the heading (default 0). */
  stepM?: number;
  precision?: number;
  lbs?: boolean;
}

export class Journey {
  private points: Point[] = [];
  private t: number;
  private lat: number;
  private lng: number;
  private heading = 0;
  /** The next drive sends its starting point first (journey start, after a silence). */
  private needStart = true;
  private trip: TruthTrip | null = null;
  private parking: TruthParking | null = null;
  /** A short stop inside the open trip, since this time (a silence turns it into a parking). */
  private shortStopAt: number | null = null;
  private truth: Truth = { trips: [], parkings: [], singles: [], totalKm: 0, visits: [] };
  private circles: Circle[] = [];
  private readonly parkingMinMs: number;

  constructor(
    start: { lat: number; lng: number; time: number },
    private opts: JourneyOptions = {},
  ) {
    this.t = start.time;
    this.lat = start.lat;
    this.lng = start.lng;
    this.parkingMinMs = (opts.parkingMinSeconds ?? 300) * 1000;
  }

  drive(o: DriveStep): this {
    const every = (o.every ?? 1) * 1000;
    if (o.bearing !== undefined) this.heading = o.bearing;
    const steps = Math.max(1, Math.round((o.km * 3_600_000) / (o.kmh * every)));
    let first = this.t + every;
    if (this.needStart) {
      this.emit(o.kmh, true); // the starting point, seen moving
      first = this.t;
    }
    this.startTrip(first);
    for (let i = 0; i < steps; i++) {
      this.t += every;
      ({ lat: this.lat, lng: this.lng } = destination(this.lat, this.lng, this.heading, o.km / steps));
      this.emit(o.kmh, true);
    }
    this.trip!.lengthKm += o.km;
    this.trip!.movingMs += steps * every;
    this.truth.totalKm += o.km;
    this.needStart = false;
    this.shortStopAt = null;
    return this;
  }

  /** Drive in a straight line (great circle) to a place. */
  driveTo(to: { lat: number; lng: number }, o: { kmh: number; every?: number }): this {
    const km = haversineKm(this.lat, this.lng, to.lat, to.lng);
    return this.drive({ km, kmh: o.kmh, every: o.every, bearing: bearing(this.lat, this.lng, to.lat, to.lng) });
  }

  stop(o: StopStep): this {
    const every = (o.every ?? 10) * 1000;
    const n = Math.max(1, Math.floor((o.minutes * 60_000) / every));
    const first = this.t + every;
    for (let i = 0; i < n; i++) {
      this.t += every;
      this.emit(0, !o.ignitionOff);
    }
    const long = o.minutes * 60_000 >= this.parkingMinMs || !!o.ignitionOff;
    if (this.trip && long) this.toParking(first);
    else if (this.trip) this.shortStopAt ??= first;
    else if (!this.parking) {
      if (long) this.parking = { start: first, end: first };
      else this.startTrip(first); // a short stop at the start belongs to the trip that follows
    }
    this.needStart = false;
    return this;
  }

  /** The tracker says nothing for a while. */
  gap(o: { minutes: number }): this {
    if (this.trip && this.shortStopAt !== null) this.toParking(this.shortStopAt);
    else if (this.trip) this.closeTrip(this.points[this.points.length - 1].time);
    this.t += o.minutes * 60_000;
    this.needStart = true;
    return this;
  }

  /** Interval mode: isolated reports, each a single report; a silence follows the last one. */
  reports(o: ReportsStep): this {
    const every = (o.everyMinutes ?? 60) * 60_000;
    if (this.trip) this.closeTrip(this.points[this.points.length - 1].time);
    for (let i = 0; i < o.count; i++) {
      this.t += every;
      if (i > 0 || this.points.length) ({ lat: this.lat, lng: this.lng } = destination(this.lat, this.lng, this.heading, (o.stepM ?? 0) / 1000));
      if (this.parking) this.closeParking(this.t);
      this.emit(0, false, { precision: o.precision ?? NaN, lbs: !!o.lbs });
      this.truth.singles.push(this.t);
    }
    this.t += every;
    this.needStart = true;
    return this;
  }

  /** Drive to the circle's centre, stay `minutes` (a parking when long enough), to be left by the next drive. */
  enterCircle(c: Circle, o: { minutes: number; kmh: number }): this {
    this.circles.push(c);
    return this.driveTo(c, { kmh: o.kmh }).stop({ minutes: o.minutes });
  }

  build(): { points: Point[]; truth: Truth } {
    const last = this.points[this.points.length - 1]?.time ?? this.t;
    const truth: Truth = structuredClone(this.truth);
    if (this.trip) truth.trips.push({ ...this.trip, end: last, open: true });
    if (this.parking) truth.parkings.push({ ...this.parking, end: last, open: true });
    truth.visits = this.circles.map((c) => visitsOf(this.points, c));
    return { points: this.points.map((p) => ({ ...p })), truth };
  }

  private emit(speed: number, ignitionOn: boolean, extra: Partial<Point> = {}): void {
    this.points.push({
      time: this.t,
      lat: this.lat,
      lng: this.lng,
      alt: 100,
      speed,
      course: this.heading,
      satellites: 9,
      precision: 5,
      hdop: 0.9,
      valid: true,
      lbs: false,
      ...(this.opts.ignition ? { ignition: ignitionOn } : {}),
      ...extra,
    });
  }

  private startTrip(at: number): void {
    if (this.trip) return;
    if (this.parking) this.closeParking(at);
    this.trip = { start: at, end: at, lengthKm: 0, movingMs: 0 };
  }

  private toParking(at: number): void {
    this.closeTrip(at);
    this.parking = { start: at, end: at };
    this.shortStopAt = null;
  }

  private closeTrip(at: number): void {
    if (this.trip && at > this.trip.start) this.truth.trips.push({ ...this.trip, end: at });
    this.trip = null;
  }

  private closeParking(at: number): void {
    if (this.parking && at > this.parking.start) this.truth.parkings.push({ ...this.parking, end: at });
    this.parking = null;
  }
}

export function journey(start: { lat: number; lng: number; time: number }, opts?: JourneyOptions): Journey {
  return new Journey(start, opts);
}

/** Stays inside a circle by brute force: enter at the first point inside, exit at the first outside. */
export function visitsOf(points: Point[], c: Circle): Array<{ enter: number; exit: number | null }> {
  const out: Array<{ enter: number; exit: number | null }> = [];
  let open: { enter: number; exit: number | null } | null = null;
  for (const p of points) {
    const inside = haversineKm(c.lat, c.lng, p.lat, p.lng) * 1000 <= c.radiusM;
    if (inside && !open) out.push((open = { enter: p.time, exit: null }));
    else if (!inside && open) (open.exit = p.time), (open = null);
  }
  return out;
}

/** Initial great-circle bearing from one point to another, degrees. */
export function bearing(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = Math.PI / 180;
  const y = Math.sin((lng2 - lng1) * r) * Math.cos(lat2 * r);
  const x = Math.cos(lat1 * r) * Math.sin(lat2 * r) - Math.sin(lat1 * r) * Math.cos(lat2 * r) * Math.cos((lng2 - lng1) * r);
  return ((Math.atan2(y, x) / r) + 360) % 360;
}
