/**
 * The one point model (issue 9): the flag helpers round-trip, and the one visibility rule is what
 * every reader of points applies — the track calls' reads of `fixes`, their extents, and the packed
 * track points the telemetry workers write. Real SQLite file, the writer's own store code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FLAG, flagsOf, hasAlarm, ignitionOf, isArchive, isGnssFix, isLbs, isTrackPoint, isValid, trackPointsOf, emptyColumns } from '../../src/core/point.ts';
import { createUser } from '../../src/accounts/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { pack } from '../../src/gateway/packing.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { openFixStore } from '../../src/store/fixes.ts';
import { openStore } from '../../src/store/index.ts';
import type { DeviceRecord } from '../../protocols/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-point-'));
const config = loadConfig({ FSM_DATA_DIR: dir });
const dbFile = config.dbFile;
const store = openStore(dbFile);
afterAll(() => {
  try {
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('flags', () => {
  it('every combination of facts round-trips through the bits and the named helpers', () => {
    const seen = new Set<number>();
    for (const valid of [false, true])
      for (const lbs of [false, true])
        for (const archive of [false, true])
          for (const ignition of [undefined, false, true])
            for (const alarm of [false, true]) {
              const f = flagsOf({ valid, lbs, archive, ignition, alarm });
              expect({ valid: isValid(f), lbs: isLbs(f), archive: isArchive(f), ignition: ignitionOf(f), alarm: hasAlarm(f) }).toEqual({ valid, lbs, archive, ignition, alarm });
              expect(isGnssFix(f)).toBe(valid && !lbs);
              seen.add(f);
            }
    expect(seen.size).toBe(2 * 2 * 2 * 3 * 2); // no two combinations share bits
  });

  it('the writer packs the stored layout (the fixes table keeps it on disk)', () => {
    const rows = pack(1, [{ time: 1, lat: 1, lng: 2, valid: true, lbs: true, attributes: { archive: true, ignition: false, alarm: 'sos' } }], 0);
    expect(rows.values[10]).toBe(FLAG.valid | FLAG.lbs | FLAG.archive | FLAG.ignitionKnown | FLAG.alarm);
    expect(FLAG).toEqual({ valid: 1, lbs: 2, archive: 4, ignitionKnown: 8, ignitionOn: 16, alarm: 32 });
  });
});

describe('the visibility rule', () => {
  const V = FLAG.valid;
  const cases: Array<[string, number, number | null, number | null, boolean]> = [
    ['a valid fix', V, 54.7, 25.3, true],
    ['a valid GSM LBS fix', V | FLAG.lbs, 54.7, 25.3, true],
    ['an invalid fix', 0, 54.7, 25.3, false],
    ['at 0,0 (a device\'s "no fix")', V, 0, 0, false],
    ['on the equator', V, 0, 25.3, true],
    ['on the prime meridian', V, 54.7, 0, true],
    ['without a location', V, null, null, false],
    ['without a longitude', V, 54.7, null, false],
    ['NaN (absent in columns)', V, NaN, NaN, false],
  ];
  it.each(cases)('%s', (_name, flags, lat, lng, shown) => expect(isTrackPoint(flags, lat, lng)).toBe(shown));

  it('is what the track reads of fixes, their extents and the packed track points apply', async () => {
    const T0 = Date.UTC(2030, 0, 1);
    const { id: userId } = await createUser({ store, config, mailer: createMailer(config.mail), now: () => T0 }, { login: 'point@example.com', password: 'point-1' });
    const records: DeviceRecord[] = [
      { time: T0, lat: 54.7, lng: 25.3, valid: true, attributes: {} },
      { time: T0 + 1000, lat: 54.71, lng: 25.31, valid: false, attributes: {} },
      { time: T0 + 2000, lat: 0, lng: 0, valid: true, attributes: {} },
      { time: T0 + 3000, valid: true, attributes: { ignition: true } }, // a status record
      { time: T0 + 4000, lat: 54.72, lng: 25.32, valid: true, lbs: true, attributes: {} },
      { time: T0 + 5000, lat: 0, lng: 25.33, valid: true, attributes: {} },
      { time: T0 + 6000, lat: 54.74, lng: 25.34, valid: true, attributes: { alarm: 1 } },
    ];
    const sourceId = store.trackers.getAny(store.trackers.add({ userId, deviceId: 'visible1', protocol: 'teltonika', label: 'V', tariffId: 1, now: T0 }))?.source_id;
    expect(sourceId).toBeDefined();
    const writer = openFixStore(dbFile, 'NORMAL');
    try {
      writer.fixes.write([pack(sourceId!, records, T0)], T0);
    } finally {
      writer.close();
    }
    const packed = pack(sourceId!, records, T0).values;
    const want = records.map((r, i) => ({ time: r.time!, lat: r.lat ?? null, lng: r.lng ?? null, flags: packed[i * 14 + 10] })).filter((p) => isTrackPoint(p.flags, p.lat, p.lng));
    expect(want.map((p) => p.time - T0)).toEqual([0, 4000, 5000, 6000]);

    const all = store.tracks.fixColumns(sourceId!, T0, T0 + 10_000, true);
    expect(Array.from(all.time.subarray(0, all.n))).toEqual(want.map((p) => p.time));
    expect(Array.from(all.flags.subarray(0, all.n))).toEqual(want.map((p) => p.flags));
    const gnss = store.tracks.fixColumns(sourceId!, T0, T0 + 10_000, false);
    expect(Array.from(gnss.time.subarray(0, gnss.n))).toEqual(want.filter((p) => !isLbs(p.flags)).map((p) => p.time));
    expect(store.tracks.extent(sourceId!, T0, T0 + 10_000)).toEqual({ n: 4, minLat: 0, maxLat: 54.74, minLng: 25.3, maxLng: 25.34 });

    // The telemetry columns carry the stored flags unchanged, and the worker's track points are the same points.
    const cols = store.telemetry.pointColumns(sourceId!, T0, 100);
    expect(Array.from(cols.flags.subarray(0, cols.n))).toEqual(records.filter((r) => r.lat !== undefined).map((r) => packed[records.indexOf(r) * 14 + 10]));
    const shown = trackPointsOf(cols);
    expect(Array.from(shown.time.subarray(0, shown.n))).toEqual(want.map((p) => p.time));
    expect(trackPointsOf(emptyColumns(0)).n).toBe(0);
  });
});
