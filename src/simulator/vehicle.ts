/**
 * A virtual vehicle: drives road-like legs (straight runs, right-angle turns at junctions, gentle
 * bends, traffic-light stops), parks for minutes with the ignition off, idles before leaving, and
 * keeps plausible sensors (alternator vs battery voltage, fuel burnt by distance and idling,
 * odometer, door switch). Deterministic per seed, so a run and its tests are reproducible.
 * Integrated in steps of at most one second, whatever the reporting interval.
 */
import type { SimFix } from './types.ts';

/** mulberry32: tiny, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EARTH_M = 6371000;
const DEG = 180 / Math.PI;
const TANK_L = 60;
const L_PER_M = 9 / 100_000; // 9 l/100 km
const IDLE_L_PER_S = 0.8 / 3600;
const ACCEL = 1.8; // m/s²
const BRAKE = 3;

/** Road classes: share of legs, speed range km/h, leg length range m. */
const ROADS = [
  { share: 0.65, kmh: [30, 55], leg: [150, 900] },
  { share: 0.25, kmh: [60, 80], leg: [500, 2500] },
  { share: 0.1, kmh: [90, 115], leg: [2000, 8000] },
] as const;

type Phase = 'parked' | 'warmup' | 'driving' | 'stopping';

export interface VehicleOptions {
  seed: number;
  center?: { lat: number; lng: number };
  radiusKm?: number;
}

export const DEFAULT_CENTER = { lat: 54.6872, lng: 25.2797 };

export class Vehicle {
  private readonly rand: () => number;
  private readonly center: { lat: number; lng: number };
  private readonly radiusM: number;
  private lat: number;
  private lng: number;
  private course: number;
  private targetCourse: number;
  private speed = 0; // m/s
  private targetSpeed = 0;
  private phase: Phase;
  private phaseLeft = 0; // s
  private legLeft = 0; // m
  private tripLeft = 0; // m
  /** A `stopping` phase ends in a park (trip over) rather than a traffic-light wait. */
  private parkAfterStop = false;
  private doorLeft = 0; // s the door stays open
  private ignition: boolean;
  private ignitionChanged = false;
  private odometer: number;
  private fuel: number; // litres
  private altitudeBase: number;
  private satellites: number;
  private rssi = 4;

  constructor(opts: VehicleOptions) {
    this.rand = rng(opts.seed * 7919 + 17);
    this.center = opts.center ?? DEFAULT_CENTER;
    this.radiusM = (opts.radiusKm ?? 15) * 1000;
    // start somewhere in the disc, in a random state, so a fleet does not move in lockstep
    const r = this.radiusM * Math.sqrt(this.rand());
    const a = this.rand() * 2 * Math.PI;
    [this.lat, this.lng] = offset(this.center.lat, this.center.lng, r * Math.cos(a), r * Math.sin(a));
    this.course = this.targetCourse = Math.floor(this.rand() * 4) * 90;
    this.odometer = Math.round(20_000_000 + this.rand() * 200_000_000);
    this.fuel = TANK_L * (0.3 + this.rand() * 0.65);
    this.altitudeBase = 100 + this.rand() * 150;
    this.satellites = 8 + Math.floor(this.rand() * 6);
    const p = this.rand();
    this.phase = p < 0.6 ? 'driving' : p < 0.7 ? 'warmup' : 'parked';
    this.ignition = this.phase !== 'parked';
    this.phaseLeft = this.phase === 'parked' ? this.rand() * 300 : 20 + this.rand() * 40;
    if (this.phase === 'driving') this.startTrip();
  }

  /** Moves the vehicle `seconds` forward. */
  advance(seconds: number): void {
    for (let left = seconds; left > 1e-9; left -= 1) this.step(Math.min(1, left));
  }

  /** The record a tracker would take now, quantised to what the protocols carry. */
  fix(time: number): SimFix {
    const moving = this.speed > 0.5;
    this.satellites = clamp(this.satellites + (this.rand() < 0.2 ? (this.rand() < 0.5 ? -1 : 1) : 0), 6, 15);
    this.rssi = clamp(this.rssi + (this.rand() < 0.1 ? (this.rand() < 0.5 ? -1 : 1) : 0), 2, 5);
    const power = this.ignition ? 13.9 + this.rand() * 0.4 : 12.45 + this.rand() * 0.15;
    const event = this.ignitionChanged ? 239 : 0;
    this.ignitionChanged = false;
    return {
      time,
      lat: round(this.lat, 7),
      lng: round(this.lng, 7),
      altitude: Math.round(this.altitudeBase + 15 * Math.sin(this.odometer / 3000)),
      speed: moving ? Math.round(this.speed * 3.6) : 0,
      course: Math.round(this.course) % 360,
      satellites: this.satellites,
      hdop: round(0.6 + (15 - this.satellites) * 0.1 + this.rand() * 0.2, 1),
      ignition: this.ignition,
      motion: moving,
      power: round(power, 3),
      battery: round(4.05 + this.rand() * 0.1, 3),
      batteryLevel: 90 + Math.floor(this.rand() * 11),
      fuelLevel: Math.round((this.fuel / TANK_L) * 100),
      odometer: Math.round(this.odometer),
      inputs: (this.ignition ? 1 : 0) | (this.doorLeft > 0 ? 2 : 0),
      rssi: this.rssi,
      cell: { mcc: 246, mnc: 1, lac: 1000 + (Math.floor(this.lat * 20) & 0x3fff), cid: ((Math.floor(this.lat * 200) & 0xfff) << 12) | (Math.floor(this.lng * 200) & 0xfff) },
      event,
    };
  }

  private step(dt: number): void {
    this.doorLeft = Math.max(0, this.doorLeft - dt);
    if (this.ignition) this.fuel = Math.max(0, this.fuel - IDLE_L_PER_S * dt);
    if (this.phase === 'parked' || this.phase === 'warmup') {
      this.phaseLeft -= dt;
      if (this.phaseLeft > 0) return;
      if (this.phase === 'parked') {
        this.setIgnition(true);
        this.phase = 'warmup';
        this.phaseLeft = 20 + this.rand() * 70;
        this.doorLeft = 5;
      } else this.startTrip();
      return;
    }
    this.steer(dt);
    if (this.phase === 'stopping') {
      this.speed = Math.max(0, this.speed - BRAKE * dt);
      if (this.speed > 0) return this.move(this.speed * dt);
      this.phaseLeft -= dt;
      if (this.parkAfterStop) return this.park();
      if (this.phaseLeft <= 0) this.phase = 'driving';
      return;
    }
    // slow down for a turn in progress or coming at the end of the leg
    const turning = Math.abs(angleDiff(this.targetCourse, this.course)) > 20;
    const target = turning || this.legLeft < 40 ? Math.min(this.targetSpeed, 7) : this.targetSpeed;
    const dv = clamp(target - this.speed, -BRAKE * dt, ACCEL * dt);
    this.speed = Math.max(0, this.speed + dv + (this.rand() - 0.5) * 0.3 * dt);
    const d = this.speed * dt;
    this.move(d);
    this.legLeft -= d;
    this.tripLeft -= d;
    if (this.tripLeft <= 0) {
      this.phase = 'stopping';
      this.parkAfterStop = true;
    } else if (this.legLeft <= 0) this.newLeg();
  }

  private move(d: number): void {
    [this.lat, this.lng] = offset(this.lat, this.lng, d * Math.cos(this.course / DEG), d * Math.sin(this.course / DEG));
    this.odometer += d;
    this.fuel = Math.max(0, this.fuel - d * L_PER_M);
  }

  /** Heading follows the road: quick turns at town speeds, slow bends at highway speeds. */
  private steer(dt: number): void {
    const rate = (this.speed < 10 ? 30 : 8) * dt;
    const diff = angleDiff(this.targetCourse, this.course);
    this.course = norm(this.course + clamp(diff, -rate, rate));
  }

  private startTrip(): void {
    this.phase = 'driving';
    this.parkAfterStop = false;
    this.tripLeft = 2000 + this.rand() * 23000;
    this.newLeg();
  }

  private newLeg(): void {
    const p = this.rand();
    const road = p < ROADS[0].share ? ROADS[0] : p < ROADS[0].share + ROADS[1].share ? ROADS[1] : ROADS[2];
    this.targetSpeed = (road.kmh[0] + this.rand() * (road.kmh[1] - road.kmh[0])) / 3.6;
    this.legLeft = road.leg[0] + this.rand() * (road.leg[1] - road.leg[0]);
    const [north, east] = metres(this.center.lat, this.center.lng, this.lat, this.lng);
    if (Math.hypot(north, east) > this.radiusM) {
      // head back towards the centre, snapped to the street grid
      const home = norm(Math.atan2(-east, -north) * DEG);
      this.targetCourse = norm(Math.round(home / 90) * 90);
    } else {
      const t = this.rand();
      this.targetCourse = norm(t < 0.3 ? this.targetCourse + 90 : t < 0.6 ? this.targetCourse - 90 : this.targetCourse + (this.rand() - 0.5) * 30);
    }
    if (this.rand() < 0.15) {
      // a traffic light or a junction to give way at
      this.phase = 'stopping';
      this.phaseLeft = 10 + this.rand() * 50;
    }
  }

  private park(): void {
    this.phase = 'parked';
    this.setIgnition(false);
    this.doorLeft = 10;
    this.speed = 0;
    // mostly minutes; now and then a long stay
    this.phaseLeft = this.rand() < 0.1 ? 3600 + this.rand() * 7200 : 120 + this.rand() * 1500;
    if (this.fuel < TANK_L * 0.15) this.fuel = TANK_L * (0.9 + this.rand() * 0.1);
  }

  private setIgnition(on: boolean): void {
    if (this.ignition !== on) this.ignitionChanged = true;
    this.ignition = on;
  }
}

function offset(lat: number, lng: number, north: number, east: number): [number, number] {
  return [lat + (north / EARTH_M) * DEG, lng + (east / (EARTH_M * Math.cos(lat / DEG))) * DEG];
}

/** (north, east) metres from a to b, equirectangular: fine over a city. */
export function metres(lat1: number, lng1: number, lat2: number, lng2: number): [number, number] {
  return [((lat2 - lat1) / DEG) * EARTH_M, ((lng2 - lng1) / DEG) * EARTH_M * Math.cos(((lat1 + lat2) / 2) / DEG)];
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const norm = (deg: number) => ((deg % 360) + 360) % 360;
const angleDiff = (to: number, from: number) => ((to - from + 540) % 360) - 180;
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
