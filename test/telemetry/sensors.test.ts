/**
 * The attribute -> spec mapping (issue 3; spec: "Sensor input names", "State names", "Semantic
 * input types", "Counter types"): units and conversions per protocol, and every attribute the 15
 * decoders emit from the captures mapped to names of the spec's enums with finite values.
 */
import { describe, expect, it } from 'vitest';
import type { AttrValue } from '../../protocols/types.ts';
import type { LatestAttrs } from '../../src/store/device-state.ts';
import { readCounters, readInputs, readSensors, readStates } from '../../src/telemetry/sensors.ts';
import { loadProtocols } from '../protocols/load.ts';
import { groups, messageLines, replayGroup } from '../protocols/harness.ts';

const T = Date.UTC(2025, 4, 1, 12);
/** Latest values all reported at T unless a time is given. */
const at = (attrs: Record<string, AttrValue | [AttrValue, number]>): LatestAttrs =>
  Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, Array.isArray(v) ? v : [v, T]])) as LatestAttrs;
const byName = <X extends { name: string }>(xs: X[]): Record<string, X> => Object.fromEntries(xs.map((x) => [x.name, x]));

describe('sensor inputs', () => {
  it('board_voltage in volts, with units and the time reported', () => {
    expect(readSensors(at({ power: 14.548 }), 'teltonika')).toEqual([
      { name: 'board_voltage', label: 'Board voltage', type: 'voltage', unitsType: 'volt', units: 'V', value: 14.548, time: T, fuel: false },
    ]);
  });
  it('free-form protocols (wialon, osmand): a power of 100 and more is millivolts', () => {
    expect(readSensors(at({ power: 12600 }), 'wialon')[0].value).toBe(12.6);
    expect(readSensors(at({ power: 12.6 }), 'wialon')[0].value).toBe(12.6);
    expect(readSensors(at({ power: 24100 }), 'osmand')[0].value).toBe(24.1);
  });
  it('numbered families: analog_x, impulse_counter_x, ext_temp_sensor_x in index order, out-of-range indexes dropped', () => {
    const s = readSensors(at({ adc2: 0.07, adc1: 0.115, adc9: 1, count1: 42, temp3: 21.5, temp11: 5, deviceTemp: 35 }), 'ruptela');
    expect(s.map((x) => x.name)).toEqual(['analog_1', 'analog_2', 'impulse_counter_1', 'temp_sensor', 'ext_temp_sensor_3']);
    expect(byName(s).analog_1).toMatchObject({ label: 'Analog input 1', value: 0.115, unitsType: 'volt' });
    expect(byName(s).ext_temp_sensor_3).toMatchObject({ value: 21.5, unitsType: 'celsius', units: '°C' });
  });
  it('galileo: zero-based thermometers, LLS sensors, analog inputs (mV -> V) and RS-232 ports', () => {
    const s = byName(readSensors(at({ adc0: 12340, temp0: -5, fuel0: 812, rs2321: 7, fuel: 40 }), 'galileo'));
    expect(s.analog_1.value).toBe(12.34);
    expect(s.ext_temp_sensor_1.value).toBe(-5);
    expect(s.lls_level_1.value).toBe(812);
    expect(s.rs232_2.value).toBe(7);
    expect(s.fuel_level).toMatchObject({ value: 40, unitsType: 'percent' });
  });
  it('fuel: litres by default, percent where the protocol says so; the first attribute per name wins', () => {
    expect(byName(readSensors(at({ fuel: 31.5, fuelLevel: 60 }), 'jt808')).fuel_level).toMatchObject({ value: 31.5, unitsType: 'litre', fuel: true });
    expect(byName(readSensors(at({ fuelLevel: 60 }), 'gps103')).fuel_level).toMatchObject({ value: 60, unitsType: 'percent' });
    expect(byName(readSensors(at({ fuel: 45 }), 'gl200')).fuel_level.unitsType).toBe('percent');
  });
  it('teltonika: CAN fuel in litres and percent, Dallas error codes hidden', () => {
    const s = byName(readSensors(at({ fuel: 52.3, fuelLevel: 71, temp1: 300, temp2: 21.4 }), 'teltonika'));
    expect(s.can_fuel_litres).toMatchObject({ value: 52.3, units: 'l' });
    expect(s.can_fuel).toMatchObject({ value: 71, units: '%' });
    expect(s.ext_temp_sensor_1).toBeUndefined();
    expect(s.ext_temp_sensor_2.value).toBe(21.4);
  });
  it('ruptela and gl200: fuel rate in l/h is can_fuel_rate', () => {
    expect(byName(readSensors(at({ fuelConsumption: 3.5 }), 'ruptela')).can_fuel_rate).toMatchObject({ value: 3.5, units: 'l/h' });
    expect(byName(readSensors(at({ fuelConsumption: 7.9 }), 'jt808')).fuel_consumption).toMatchObject({ units: 'l/100km' });
  });
  it('OBD/CAN values, conversions (obdOdometer m -> km, hours ms -> h)', () => {
    const s = byName(readSensors(at({ rpm: 1439, obdSpeed: 88, coolantTemp: 90, engineLoad: 35, throttle: 12, obdOdometer: 123456, hours: 5_400_000, engineTemp: 88.5 }), 'teltonika'));
    expect(Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.value]))).toEqual({
      obd_rpm: 1439, obd_speed: 88, obd_coolant_t: 90, obd_engine_load: 35, obd_throttle: 12, can_engine_temp: 88.5, can_mileage: 123.456, can_engine_hours: 1.5,
    });
  });
  it('non-numeric and non-finite values are skipped; numeric strings count', () => {
    expect(readSensors(at({ power: 'n/a', rpm: '1200', adc1: true }), 'wialon').map((s) => [s.name, s.value])).toEqual([['obd_rpm', 1200]]);
  });
});

describe('states', () => {
  it('maps vin, dtcs, faultCount, driverUniqueId, charge and door with their value types', () => {
    const s = readStates(at({ vin: 'WV1ZZZ2EZ86015388', dtcs: 'P0299 P0675', faultCount: 7, driverUniqueId: '01A2B3C4D5E6F701', charge: true, door: 0, milDistance: 12.5 }));
    expect(Object.fromEntries(s.map((x) => [x.name, x.value]))).toEqual({
      obd_vin: 'WV1ZZZ2EZ86015388', obd_dtc_codes: 'P0299 P0675', obd_dtc_number: 7, obd_mil_activated_distance: 12.5,
      hardware_key: '01A2B3C4D5E6F701', external_power_state: true, can_door_state: false,
    });
  });
  it('obd_dtc_number falls back to the number of codes', () => {
    expect(readStates(at({ dtcs: 'P0299 P0675 P0674' }))).toContainEqual({ name: 'obd_dtc_number', value: 3, time: T });
  });
});

describe('digital inputs', () => {
  it('in<n> attributes in order, missing ones false, custom states numbered, ignition semantic', () => {
    const r = readInputs(at({ in1: true, in3: true, ignition: false }), 'teltonika');
    expect(r.inputs).toEqual([true, false, true]);
    expect(r.states).toEqual([
      { type: 'ignition', name: 'Ignition', status: false, input_number: 0 },
      { type: 'custom', name: null, status: true, input_number: 1 },
      { type: 'custom', name: null, status: false, input_number: 2 },
      { type: 'custom', name: null, status: true, input_number: 3 },
    ]);
    expect(r.time).toBe(T);
  });
  it('the input bit mask: 8 inputs by default, 16 on galileo; a newer in<n> wins over its bit', () => {
    expect(readInputs(at({ input: 5 }), 'wialon').inputs).toEqual([true, false, true, false, false, false, false, false]);
    expect(readInputs(at({ input: 1 }), 'galileo').inputs).toHaveLength(16);
    const r = readInputs(at({ input: [1, T - 1000], in1: [false, T], in2: [true, T - 5000] }), 'wialon');
    expect(r.inputs.slice(0, 2)).toEqual([false, false]);
    expect(r.time).toBe(T);
  });
  it('no inputs: empty arrays and no time', () => {
    expect(readInputs(at({ power: 12 }), 'teltonika')).toEqual({ inputs: [], states: [], time: null });
  });
});

describe('counters', () => {
  it('odometer m -> km (odometer, else totalDistance), fuel_consumed litres, engine_hours ms -> h', () => {
    expect(readCounters(at({ odometer: 61383, hours: 36_000_000 + 1_800_000, fuelUsed: 1234.5 }))).toEqual([
      { type: 'odometer', value: 61.383, time: T },
      { type: 'fuel_consumed', value: 1234.5, time: T },
      { type: 'engine_hours', value: 10.5, time: T },
    ]);
    expect(readCounters(at({ totalDistance: 1500 }))).toEqual([{ type: 'odometer', value: 1.5, time: T }]);
  });
});

// Spec enums, for checking what the decoders' real attributes turn into.
const SENSOR_NAME = new RegExp(
  '^(composite|input_status|(analog|freq|impulse_counter)_[1-8]|fuel_level|fuel_frequency|fuel_temperature|lls_(temperature|level)_([1-9]|1[0-6])|fuel_consumption|obd_(consumption|rpm|fuel|coolant_t|intake_air_t|throttle|speed|engine_load|absolute_load_value|control_module_voltage|time_since_engine_start|mil_run_time)|rs232_[1-6]|board_voltage|can_(engine_temp|engine_hours|mileage|throttle|fuel|fuel_2|fuel_litres|fuel_economy|consumption|rpm|speed|r_prefix|coolant_t|intake_air_t|engine_load|adblue_level|fuel_rate)|raw_can_([1-9]|1[0-6])|can_axle_load_([1-9]|1[0-5])|temp_sensor|ext_temp_sensor_([1-9]|10))$',
);
const STATE_TYPES: Record<string, string> = { obd_vin: 'string', obd_dtc_codes: 'string', obd_dtc_number: 'number', obd_mil_activated_distance: 'number', hardware_key: 'string', external_power_state: 'boolean', can_door_state: 'boolean' };

describe('what the decoders really emit (every capture of every protocol)', async () => {
  const protocols = await loadProtocols();
  it.each(protocols.map((p) => [p.name, p] as const))('%s', (name, protocol) => {
    const seen = new Set<string>();
    let records = 0;
    for (const group of groups(messageLines(name))) {
      for (const step of replayGroup(protocol, group)) {
        for (const rec of step.records) {
          records++;
          const latest = Object.fromEntries(Object.entries(rec.attributes).map(([k, v]) => [k, [v, rec.time ?? T]])) as LatestAttrs;
          for (const s of readSensors(latest, name)) {
            expect(s.name, `${name} seq ${step.line.seq}`).toMatch(SENSOR_NAME);
            expect(Number.isFinite(s.value), `${name} ${s.name}`).toBe(true);
            seen.add(s.name);
          }
          for (const s of readStates(latest)) expect(typeof s.value, `${name} ${s.name}`).toBe(STATE_TYPES[s.name]);
          for (const st of readInputs(latest, name).states) expect(st.input_number).toBeGreaterThanOrEqual(0);
          for (const c of readCounters(latest)) expect(Number.isFinite(c.value), `${name} ${c.type}`).toBe(true);
        }
      }
    }
    // a protocol whose every capture yields nothing (autotrack, progress, recoda, tlv: logins) has no records to check
    if (messageLines(name).some((l) => l.expect !== 'none')) expect(records).toBeGreaterThan(0);
    if (['teltonika', 'ruptela', 'galileo', 'gl200', 'gt06', 'jt808', 'meitrack', 'suntech', 'egts'].includes(name)) expect(seen).toContain('board_voltage');
  });
});
