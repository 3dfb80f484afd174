/**
 * Tracker readings over real HTTP (issue 3; spec: Trackers — get_last_gps_point, get_diagnostics,
 * get_inputs, get_fuel, get_counters): shapes, units, user time zone, and the errors 201/204/208.
 * device_state rows are written directly, as the gateway's writer would; one set comes from a
 * real Teltonika capture decoded by protocols/teltonika.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocol as teltonika } from '../../protocols/teltonika/index.ts';
import type { AttrValue, DeviceRecord } from '../../protocols/types.ts';
import { formatDateTime } from '../../src/core/time.ts';
import { messageLines } from '../protocols/harness.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const TZ = 'Asia/Tokyo';
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

const T = Date.UTC(2025, 4, 1, 12, 0, 0); // 21:00:00 in Tokyo
const tokyo = (ms: number) => formatDateTime(ms, TZ);
const DATE_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
let imei = 352000000000000;

interface Fix { time: number; lat: number; lng: number; alt?: number; speed?: number; course?: number; satellites?: number; precision?: number | null }

/** A tracker of Ann's with a device_state row as the gateway writes it. */
function trackerWithState(o: { fix?: Fix; attrs?: Record<string, [AttrValue, number]>; protocol?: string } = {}): number {
  const id = s.addTracker(ann.id, String(imei++), { protocol: o.protocol ?? 'teltonika' });
  const source = s.store.trackers.getAny(id)!.source_id;
  const f = o.fix;
  const times = [f?.time ?? 0, ...Object.values(o.attrs ?? {}).map((a) => a[1])];
  s.sql
    .prepare('INSERT INTO device_state (source_id, fix_time, lat, lng, alt, speed, course, satellites, precision, last_time, attrs, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(source, f?.time ?? null, f?.lat ?? null, f?.lng ?? null, f?.alt ?? null, f?.speed ?? null, f?.course ?? null, f?.satellites ?? null, f?.precision ?? null, Math.max(...times), JSON.stringify(o.attrs ?? {}), Date.now());
  return id;
}
const at = (attrs: Record<string, AttrValue>, time = T) => Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, [v, time] as [AttrValue, number]]));

const CALLS = ['tracker/get_last_gps_point', 'tracker/get_diagnostics', 'tracker/get_inputs', 'tracker/get_fuel', 'tracker/get_counters'];

describe('errors of every call', () => {
  it.each(CALLS)('%s: 204 (201 for the last point) for unknown, other user\'s and deleted trackers; 208 when blocked; 7 without tracker_id', async (path) => {
    const notFound = path === 'tracker/get_last_gps_point' ? 201 : 204;
    const mine = trackerWithState({ fix: { time: T, lat: 1, lng: 2 }, attrs: at({ power: 12 }) });
    const unknown = await s.call(path, { hash: ann.hash, tracker_id: 999999 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.status.code).toBe(notFound);
    expect((await s.call(path, { hash: bob.hash, tracker_id: mine })).body.status.code).toBe(notFound);
    const deleted = trackerWithState();
    s.store.trackers.markDeleted(deleted);
    expect((await s.call(path, { hash: ann.hash, tracker_id: deleted })).body.status.code).toBe(notFound);
    const blocked = trackerWithState({ fix: { time: T, lat: 1, lng: 2 } });
    s.store.trackers.setBlocked(s.store.trackers.getAny(blocked)!.source_id, true);
    const b = await s.call(path, { hash: ann.hash, tracker_id: blocked });
    expect(b.status).toBe(403);
    expect(b.body.status.code).toBe(208);
    const missing = await s.call(path, { hash: ann.hash });
    expect(missing.body.status.code).toBe(7);
    expect(missing.body.errors[0].parameter).toBe('tracker_id');
    expect((await s.call(path, { tracker_id: mine })).body.status.code).toBe(4);
    expect((await s.call(path, { hash: ann.hash, tracker_id: mine })).body.success).toBe(true);
  });
});

describe('tracker/get_last_gps_point', () => {
  it('the last valid fix as a track point: ints rounded, time in the user zone, precision when known', async () => {
    const id = trackerWithState({ fix: { time: T, lat: 52.0296716, lng: 4.3717, alt: 12.6, speed: 95.5, course: 359.6, satellites: 11, precision: 7.4 } });
    const r = await s.call('tracker/get_last_gps_point', { hash: ann.hash, tracker_id: id });
    expect(r.body).toEqual({
      success: true,
      value: { lat: 52.0296716, lng: 4.3717, alt: 13, satellites: 11, get_time: '2025-05-01 21:00:00', address: '', heading: 0, speed: 96, precision: 7 },
    });
    expect(r.body.value).not.toHaveProperty('gsm_lbs');
    const bare = trackerWithState({ fix: { time: T, lat: 1, lng: 2 } });
    const v = (await s.call('tracker/get_last_gps_point', { hash: ann.hash, tracker_id: bare })).body.value;
    expect(v).toEqual({ lat: 1, lng: 2, alt: 0, satellites: 0, get_time: '2025-05-01 21:00:00', address: '', heading: 0, speed: 0 });
  });
  it('a clone reads the same device; another user reads it in their own zone', async () => {
    const id = trackerWithState({ fix: { time: T, lat: 1.5, lng: 2.5 } });
    const clone = s.store.trackers.clone(s.store.trackers.getAny(id)!, bob.id, 'shared');
    const r = await s.call('tracker/get_last_gps_point', { hash: bob.hash, tracker_id: clone });
    expect(r.body.value).toMatchObject({ lat: 1.5, lng: 2.5, get_time: formatDateTime(T, s.store.users.principal(bob.id)!.user.time_zone) });
  });
  it('204 when the tracker never sent a valid GNSS fix (no row, or only status records / LBS)', async () => {
    const never = s.addTracker(ann.id, String(imei++));
    const statusOnly = trackerWithState({ attrs: at({ power: 12.1 }) });
    for (const id of [never, statusOnly]) {
      const r = await s.call('tracker/get_last_gps_point', { hash: ann.hash, tracker_id: id });
      expect(r.status).toBe(404);
      expect(r.body.status).toEqual({ code: 204, description: `Entity not found: tracker ${id} has no GPS point yet` });
    }
  });
});

describe('tracker/get_diagnostics', () => {
  it('sensor value objects in spec units, states, update_time = newest value shown', async () => {
    const id = trackerWithState({ attrs: { ...at({ power: 14.304, rpm: 1439, adc1: 0.115, temp2: 21.5, hours: 5_400_000 }), vin: ['WV1ZZZ2EZ86015388', T + 60_000], battery: [3.9, T + 120_000] } });
    const before = Date.now();
    const r = await s.call('tracker/get_diagnostics', { hash: ann.hash, tracker_id: id });
    expect(r.body.success).toBe(true);
    expect(r.body.inputs).toEqual([
      { label: 'Board voltage', name: 'board_voltage', type: 'voltage', value: 14.304, units_type: 'volt', units: 'V', converted_units_type: null, converted_value: null },
      { label: 'Analog input 1', name: 'analog_1', type: 'voltage', value: 0.115, units_type: 'volt', units: 'V', converted_units_type: null, converted_value: null },
      { label: 'Temperature sensor 2', name: 'ext_temp_sensor_2', type: 'temperature', value: 21.5, units_type: 'celsius', units: '°C', converted_units_type: null, converted_value: null },
      { label: 'Engine RPM', name: 'obd_rpm', type: 'rpm', value: 1439, units_type: 'rpm', units: 'rpm', converted_units_type: null, converted_value: null },
      { label: 'Engine hours', name: 'can_engine_hours', type: 'time', value: 1.5, units_type: 'hour', units: 'h', converted_units_type: null, converted_value: null },
    ]);
    expect(r.body.states).toEqual({ obd_vin: 'WV1ZZZ2EZ86015388' });
    // battery (unmapped) is newer but not shown: update_time is the vin's
    expect(r.body.update_time).toBe(tokyo(T + 60_000));
    expect(r.body.user_time).toMatch(DATE_TIME);
    expect(r.body.user_time >= tokyo(before - 1000)).toBe(true);
  });
  it('board_voltage in volts from a protocol that reports millivolts (wialon pwr_ext)', async () => {
    const id = trackerWithState({ protocol: 'wialon', attrs: at({ power: 12600 }) });
    const r = await s.call('tracker/get_diagnostics', { hash: ann.hash, tracker_id: id });
    expect(r.body.inputs[0]).toMatchObject({ name: 'board_voltage', value: 12.6, units: 'V' });
  });
  it('a tracker that never reported: empty inputs, states and update_time null', async () => {
    const id = s.addTracker(ann.id, String(imei++));
    const r = await s.call('tracker/get_diagnostics', { hash: ann.hash, tracker_id: id });
    expect(r.body).toEqual({ success: true, user_time: expect.stringMatching(DATE_TIME), inputs: [], states: null, update_time: null });
  });
});

describe('tracker/get_inputs', () => {
  it('booleans in order and states with semantic types', async () => {
    const id = trackerWithState({ attrs: { ...at({ in1: true, in2: false, in3: true }), ignition: [true, T + 5000] } });
    const r = await s.call('tracker/get_inputs', { hash: ann.hash, tracker_id: id });
    expect(r.body).toEqual({
      success: true,
      user_time: expect.stringMatching(DATE_TIME),
      inputs: [true, false, true],
      states: [
        { type: 'ignition', name: 'Ignition', status: true, input_number: 0 },
        { type: 'custom', name: null, status: true, input_number: 1 },
        { type: 'custom', name: null, status: false, input_number: 2 },
        { type: 'custom', name: null, status: true, input_number: 3 },
      ],
      update_time: tokyo(T + 5000),
    });
  });
  it('the input bit mask of a galileo tracker: 16 inputs', async () => {
    const id = trackerWithState({ protocol: 'galileo', attrs: at({ input: 0b1000000000000010 }) });
    const r = await s.call('tracker/get_inputs', { hash: ann.hash, tracker_id: id });
    expect(r.body.inputs).toEqual([false, true, ...Array(13).fill(false), true]);
  });
});

describe('tracker/get_fuel', () => {
  it('only fuel-related sensors, percent or litres by protocol', async () => {
    const id = trackerWithState({ protocol: 'ruptela', attrs: { ...at({ power: 13.2, fuel: 62.5, fuelUsed: 120.5, rpm: 900 }), fuelConsumption: [3.5, T + 1000] } });
    const r = await s.call('tracker/get_fuel', { hash: ann.hash, tracker_id: id });
    expect(r.body.inputs.map((i: any) => [i.name, i.value, i.units_type])).toEqual([
      ['fuel_level', 62.5, 'percent'],
      ['can_fuel_rate', 3.5, 'litre_per_hour'],
      ['can_consumption', 120.5, 'litre'],
    ]);
    expect(r.body.update_time).toBe(tokyo(T + 1000));
    const none = trackerWithState({ attrs: at({ power: 12 }) });
    expect((await s.call('tracker/get_fuel', { hash: ann.hash, tracker_id: none })).body).toEqual({ success: true, user_time: expect.stringMatching(DATE_TIME), inputs: [], update_time: null });
  });
});

describe('tracker/get_counters', () => {
  it('odometer in km, engine_hours in hours, fuel_consumed in litres, each with its time', async () => {
    const id = trackerWithState({ attrs: { odometer: [61383, T], hours: [36_000_000, T + 1000], fuelUsed: [250.25, T + 2000] } });
    const r = await s.call('tracker/get_counters', { hash: ann.hash, tracker_id: id });
    expect(r.body).toEqual({
      success: true,
      user_time: expect.stringMatching(DATE_TIME),
      list: [
        { type: 'odometer', value: 61.383, update_time: tokyo(T) },
        { type: 'fuel_consumed', value: 250.25, update_time: tokyo(T + 2000) },
        { type: 'engine_hours', value: 10, update_time: tokyo(T + 1000) },
      ],
    });
  });
});

/** Decodes one Teltonika capture line (the shared captures) the way the gateway would. */
function decodeCapture(seq: number): DeviceRecord {
  const line = messageLines('teltonika').find((l) => l.seq === seq && l.group === 'TeltonikaProtocolDecoderTest.testDecode')!;
  const r = teltonika.decode!(Buffer.from(line.payload, 'hex'), { now: Date.now(), transport: 'tcp', config: {}, session: {}, deviceId: '123456789012345' });
  return r.records![0];
}

describe('a real Teltonika record through the API', () => {
  it('FMB with OBD data (capture seq 12): voltage, rpm, VIN, DTCs, odometer, ignition', async () => {
    const rec = decodeCapture(12);
    const attrs = Object.fromEntries(Object.entries(rec.attributes).map(([k, v]) => [k, [v, rec.time!] as [AttrValue, number]]));
    const id = trackerWithState({ fix: { time: rec.time!, lat: rec.lat!, lng: rec.lng!, alt: rec.altitude, speed: rec.speed, course: rec.course, satellites: rec.satellites }, attrs });

    const point = (await s.call('tracker/get_last_gps_point', { hash: ann.hash, tracker_id: id })).body.value;
    expect(point).toMatchObject({ lat: rec.lat, lng: rec.lng, get_time: tokyo(rec.time!), speed: Math.round(rec.speed!), satellites: rec.satellites });

    const d = (await s.call('tracker/get_diagnostics', { hash: ann.hash, tracker_id: id })).body;
    const byName = Object.fromEntries(d.inputs.map((i: any) => [i.name, i]));
    expect(byName.board_voltage).toMatchObject({ value: 14.304, units: 'V' }); // IO 66 arrives as 14304 mV
    expect(byName.obd_rpm.value).toBe(1439);
    expect(d.states).toEqual({ obd_vin: 'WV1ZZZ2EZ86015388', obd_dtc_codes: 'P0299 P0675 P0674 P0672 P0671 P0471 P2BAC', obd_dtc_number: 7 });
    expect(d.update_time).toBe(tokyo(rec.time!));

    const c = (await s.call('tracker/get_counters', { hash: ann.hash, tracker_id: id })).body;
    expect(c.list).toEqual([{ type: 'odometer', value: 41.397, update_time: tokyo(rec.time!) }]); // IO 16: 41397 m

    const i = (await s.call('tracker/get_inputs', { hash: ann.hash, tracker_id: id })).body;
    expect(i.states).toEqual([{ type: 'ignition', name: 'Ignition', status: true, input_number: 0 }]);
  });
  it('FMB with digital inputs (capture seq 1): DIN1..3 and ignition', async () => {
    const rec = decodeCapture(1);
    const attrs = Object.fromEntries(Object.entries(rec.attributes).map(([k, v]) => [k, [v, rec.time!] as [AttrValue, number]]));
    const id = trackerWithState({ fix: { time: rec.time!, lat: rec.lat!, lng: rec.lng! }, attrs });
    const i = (await s.call('tracker/get_inputs', { hash: ann.hash, tracker_id: id })).body;
    expect(i.inputs).toEqual([true, false, false]);
    expect(i.states[0]).toEqual({ type: 'ignition', name: 'Ignition', status: true, input_number: 0 });
    const d = (await s.call('tracker/get_diagnostics', { hash: ann.hash, tracker_id: id })).body;
    expect(d.inputs.find((x: any) => x.name === 'board_voltage').value).toBe(14.548);
    expect((await s.call('tracker/get_counters', { hash: ann.hash, tracker_id: id })).body.list).toEqual([{ type: 'odometer', value: 61.383, update_time: tokyo(rec.time!) }]);
  });
});
