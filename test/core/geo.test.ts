/** The one geodesy module (issue 9): known distances and bearings, destination and extent agree with them. */
import { describe, expect, it } from 'vitest';
import { bearing, destination, distanceKm, distanceM, EARTH_RADIUS_M, extentDiagonalM, extentOf } from '../../src/core/geo.ts';

const PARIS = { lat: 48.8566, lng: 2.3522 };
const LONDON = { lat: 51.5074, lng: -0.1278 };

describe('core geodesy', () => {
  it('gives known great-circle distances', () => {
    expect(distanceM(0, 0, 0, 1)).toBeCloseTo(111_195.08, 1); // a degree along the equator
    expect(distanceM(0, 0, 90, 0)).toBeCloseTo((Math.PI / 2) * EARTH_RADIUS_M, 3); // equator to pole
    expect(distanceM(0, 0, 0, 180)).toBeCloseTo(Math.PI * EARTH_RADIUS_M, 3); // antipodes
    expect(distanceKm(PARIS.lat, PARIS.lng, LONDON.lat, LONDON.lng)).toBeCloseTo(343.56, 2);
    expect(distanceKm(54.6872, 25.2797, 54.8985, 23.9036)).toBeCloseTo(91.29, 2); // Vilnius - Kaunas
    expect(distanceM(54.7, 25.3, 54.7, 25.3)).toBe(0);
    expect(distanceKm(PARIS.lat, PARIS.lng, LONDON.lat, LONDON.lng) * 1000).toBeCloseTo(distanceM(PARIS.lat, PARIS.lng, LONDON.lat, LONDON.lng), 6);
  });

  it('gives known bearings', () => {
    expect(bearing(0, 0, 1, 0)).toBeCloseTo(0, 9);
    expect(bearing(0, 0, 0, 1)).toBeCloseTo(90, 9);
    expect(bearing(0, 0, -1, 0)).toBeCloseTo(180, 9);
    expect(bearing(0, 0, 0, -1)).toBeCloseTo(270, 9);
    expect(bearing(PARIS.lat, PARIS.lng, LONDON.lat, LONDON.lng)).toBeCloseTo(330.02, 2);
  });

  it('destination goes the asked distance along the asked bearing', () => {
    for (const b of [0, 45, 90, 135, 200, 315]) {
      const d = destination(54.7, 25.3, b, 12.5);
      expect(distanceKm(54.7, 25.3, d.lat, d.lng)).toBeCloseTo(12.5, 9);
      const off = ((bearing(54.7, 25.3, d.lat, d.lng) - b + 540) % 360) - 180; // 359.9999... is 0
      expect(off).toBeCloseTo(0, 6);
    }
    expect(destination(0, 179.99, 90, 10).lng).toBeLessThan(-179); // across the antimeridian, folded
  });

  it('extent: the box of some points and its diagonal', () => {
    const lat = new Float64Array([54.7, 54.8, 54.75, 99]);
    const lng = new Float64Array([25.3, 25.2, 25.4, 99]);
    const e = extentOf(lat, lng, 3); // only the first n count
    expect(e).toEqual({ n: 3, minLat: 54.7, maxLat: 54.8, minLng: 25.2, maxLng: 25.4 });
    expect(extentDiagonalM(e)).toBeCloseTo(distanceM(54.7, 25.2, 54.8, 25.4), 9);
    expect(extentDiagonalM(extentOf(lat, lng, 0))).toBe(0);
  });
});
