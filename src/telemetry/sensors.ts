/**
 * Attribute names of the decoders (protocols/attributes.ts) -> the spec's sensor inputs, state
 * names, digital inputs and counters (issue 3; spec: "Sensor input names", "State names",
 * "Semantic input types", "Counter types"), in the units the spec names. Pure functions over the
 * latest attribute values of a device; docs/sensors.md is the same table in prose.
 * Where a protocol emits other units or numbering than the shared vocabulary, PROTOCOL_RULES says so.
 */
import type { AttrValue } from '../../protocols/types.ts';
import type { LatestAttrs } from '../store/device-state.ts';

/** Quantity kind (`type`), unit kind (`units_type`) and unit label (`units`) of a sensor. */
export interface Units {
  type: string;
  unitsType: string;
  units: string;
}

const U = {
  volt: { type: 'voltage', unitsType: 'volt', units: 'V' },
  litre: { type: 'fuel', unitsType: 'litre', units: 'l' },
  fuelPercent: { type: 'fuel', unitsType: 'percent', units: '%' },
  litrePer100: { type: 'fuel_consumption', unitsType: 'litre_per_100km', units: 'l/100km' },
  litrePerHour: { type: 'fuel_consumption', unitsType: 'litre_per_hour', units: 'l/h' },
  celsius: { type: 'temperature', unitsType: 'celsius', units: '°C' },
  rpm: { type: 'rpm', unitsType: 'rpm', units: 'rpm' },
  kmh: { type: 'speed', unitsType: 'kmh', units: 'km/h' },
  percent: { type: 'percent', unitsType: 'percent', units: '%' },
  km: { type: 'distance', unitsType: 'km', units: 'km' },
  hour: { type: 'time', unitsType: 'hour', units: 'h' },
  count: { type: 'counter', unitsType: 'custom', units: '' },
  raw: { type: 'custom', unitsType: 'custom', units: '' },
} satisfies Record<string, Units>;

/** One sensor rule: attribute (exact, or a family `prefix<n>`) -> spec name, label, units, conversion. */
interface SensorRule {
  attr: string;
  /** For families: the attribute is `attr<n>`; the spec name gets `_<n>` (1..max). */
  max?: number;
  name: string;
  label: string;
  units: Units;
  convert?: (v: number) => number;
  /** Shown by get_fuel too. */
  fuel?: boolean;
}

const m2km = (v: number) => v / 1000; // metres -> km
const ms2h = (v: number) => v / 3_600_000;
const milli = (v: number) => v / 1000;

/** The default table; order is the order of the answer. */
const SENSORS: SensorRule[] = [
  { attr: 'power', name: 'board_voltage', label: 'Board voltage', units: U.volt },
  { attr: 'fuel', name: 'fuel_level', label: 'Fuel level', units: U.litre, fuel: true },
  { attr: 'fuelLevel', name: 'fuel_level', label: 'Fuel level', units: U.fuelPercent, fuel: true },
  { attr: 'fuelConsumption', name: 'fuel_consumption', label: 'Fuel consumption', units: U.litrePer100, fuel: true },
  { attr: 'fuelUsed', name: 'can_consumption', label: 'Fuel consumed', units: U.litre, fuel: true },
  { attr: 'fuel', max: 16, name: 'lls_level', label: 'Fuel level sensor', units: U.raw, fuel: true },
  { attr: 'adc', max: 8, name: 'analog', label: 'Analog input', units: U.volt },
  { attr: 'count', max: 8, name: 'impulse_counter', label: 'Impulse counter', units: U.count },
  { attr: 'rs232', max: 6, name: 'rs232', label: 'RS-232', units: U.raw },
  { attr: 'deviceTemp', name: 'temp_sensor', label: 'Device temperature', units: U.celsius },
  { attr: 'temp', max: 10, name: 'ext_temp_sensor', label: 'Temperature sensor', units: U.celsius },
  { attr: 'rpm', name: 'obd_rpm', label: 'Engine RPM', units: U.rpm },
  { attr: 'obdSpeed', name: 'obd_speed', label: 'OBD speed', units: U.kmh },
  { attr: 'coolantTemp', name: 'obd_coolant_t', label: 'Coolant temperature', units: U.celsius },
  { attr: 'engineLoad', name: 'obd_engine_load', label: 'Engine load', units: U.percent },
  { attr: 'throttle', name: 'obd_throttle', label: 'Throttle position', units: U.percent },
  { attr: 'engineTemp', name: 'can_engine_temp', label: 'Engine temperature', units: U.celsius },
  { attr: 'obdOdometer', name: 'can_mileage', label: 'CAN mileage', units: U.km, convert: m2km },
  { attr: 'hours', name: 'can_engine_hours', label: 'Engine hours', units: U.hour, convert: ms2h },
];

/** Where a protocol departs from the shared vocabulary. */
interface ProtocolRule {
  /** Changes the default rule of an attribute (`fuel`) or family (`fuel#`); null hides it. */
  sensors?: Record<string, Partial<SensorRule> | null>;
  /** Numbered families counted from 0 by the decoder (`adc0`): shifted to the spec's 1-based names. */
  zeroBased?: string[];
  /** Drops readings a device uses as error codes. */
  invalid?: (attr: string, v: number) => boolean;
  /** Width of the `input` bit mask. */
  inputBits?: number;
}

/** Free-form parameter protocols: the device, not the protocol, picks the unit; 100 V and more is millivolts. */
const freeFormPower = { power: { convert: (v: number) => (v >= 100 ? milli(v) : v) } };
/** Fuel rate in litres per hour (CAN/FMS): the spec's can_fuel_rate. */
const fuelRate = { fuelConsumption: { name: 'can_fuel_rate', label: 'Fuel rate', units: U.litrePerHour } };
const fuelPercent = { fuel: { units: U.fuelPercent } };

export const PROTOCOL_RULES: Record<string, ProtocolRule> = {
  // LVCAN/ALL-CAN elements: 84 fuel level in litres, 89 fuel level in percent; 110 fuel rate l/h.
  // Dallas temperatures of 200 °C and more are error codes (2000 read error, 3000 not connected, ...).
  teltonika: {
    sensors: {
      fuel: { name: 'can_fuel_litres', label: 'CAN fuel level' },
      fuelLevel: { name: 'can_fuel', label: 'CAN fuel level' },
    },
    invalid: (attr, v) => /^temp\d+$/.test(attr) && v >= 200,
  },
  // Thermometers, LLS sensors, analog inputs and RS-232 ports are numbered from 0; analog inputs arrive in mV.
  galileo: {
    zeroBased: ['adc', 'fuel', 'temp', 'rs232'],
    sensors: { 'adc#': { convert: milli }, ...fuelPercent },
    inputBits: 16,
  },
  // 98 fuel level in percent, 207 CAN fuel level in percent, 100 fuel rate in l/h
  ruptela: { sensors: { ...fuelPercent, ...fuelRate, fuelLevel: { name: 'can_fuel', label: 'CAN fuel level' } } },
  gl200: { sensors: { ...fuelPercent, ...fuelRate } },
  meitrack: { sensors: { ...fuelPercent, 'adc#': { units: U.raw } } },
  // Analog inputs in device ADC units (EGTS leaves the unit to the terminal; Meitrack text reports raw hex counts).
  egts: { sensors: { 'adc#': { units: U.raw } } },
  meiligao: { sensors: { 'adc#': { units: U.raw } } },
  pricol: { sensors: { 'adc#': { units: U.raw } } },
  wialon: { sensors: freeFormPower },
  osmand: { sensors: freeFormPower },
};

export interface SensorReading extends Units {
  name: string;
  label: string;
  value: number;
  /** When the device reported it, ms UTC. */
  time: number;
  fuel: boolean;
}

function toNumber(v: AttrValue): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Float noise off (a mV / 1000 should read 14.548, not 14.548000000000002). */
const round = (v: number) => Math.round(v * 1e6) / 1e6;

/** Sensor inputs the device reported, one per spec name (the first rule in table order wins). */
export function readSensors(latest: LatestAttrs, protocol: string): SensorReading[] {
  const p = PROTOCOL_RULES[protocol] ?? {};
  const out: SensorReading[] = [];
  const seen = new Set<string>();
  for (const base of SENSORS) {
    const over = p.sensors?.[ruleKey(base)];
    if (over === null) continue;
    const rule = { ...base, ...over };
    for (const [attr, n] of attributesOf(rule, latest, p)) {
      const entry = latest[attr];
      const raw = toNumber(entry[0]);
      if (raw === undefined || p.invalid?.(attr, raw)) continue;
      const name = n === undefined ? rule.name : `${rule.name}_${n}`;
      if (seen.has(name)) continue;
      seen.add(name);
      const label = n === undefined ? rule.label : `${rule.label} ${n}`;
      out.push({ name, label, ...rule.units, value: round(rule.convert ? rule.convert(raw) : raw), time: entry[1], fuel: !!rule.fuel });
    }
  }
  return out;
}

/** How PROTOCOL_RULES address a rule: the attribute, or `prefix#` for a numbered family. */
const ruleKey = (r: SensorRule) => (r.max ? `${r.attr}#` : r.attr);

/** Attributes a rule reads, with the spec index for families, in index order. */
function attributesOf(rule: SensorRule, latest: LatestAttrs, p: ProtocolRule): Array<[string, number | undefined]> {
  if (!rule.max) return rule.attr in latest ? [[rule.attr, undefined]] : [];
  const shift = p.zeroBased?.includes(rule.attr) ? 1 : 0;
  const out: Array<[string, number]> = [];
  for (const attr of Object.keys(latest)) {
    const digits = attr.startsWith(rule.attr) ? attr.slice(rule.attr.length) : '';
    if (!/^\d{1,3}$/.test(digits)) continue;
    const n = Number(digits) + shift;
    if (n >= 1 && n <= rule.max) out.push([attr, n]);
  }
  return out.sort((a, b) => a[1] - b[1]);
}

// ---------------------------------------------------------------------------------------------
// States

export interface StateReading {
  name: string;
  value: string | number | boolean;
  time: number;
}

type StateRule = { attr: string; name: string; kind: 'string' | 'boolean' | 'integer' | 'double' };

const STATES: StateRule[] = [
  { attr: 'vin', name: 'obd_vin', kind: 'string' },
  { attr: 'dtcs', name: 'obd_dtc_codes', kind: 'string' },
  { attr: 'faultCount', name: 'obd_dtc_number', kind: 'integer' },
  { attr: 'milDistance', name: 'obd_mil_activated_distance', kind: 'double' }, // km (Teltonika 43)
  { attr: 'driverUniqueId', name: 'hardware_key', kind: 'string' },
  { attr: 'charge', name: 'external_power_state', kind: 'boolean' },
  { attr: 'door', name: 'can_door_state', kind: 'boolean' },
];

function asState(v: AttrValue, kind: StateRule['kind']): StateReading['value'] | undefined {
  if (kind === 'string') return String(v);
  if (kind === 'boolean') return typeof v === 'boolean' ? v : toNumber(v) !== undefined ? toNumber(v)! !== 0 : undefined;
  const n = toNumber(v);
  return n === undefined ? undefined : kind === 'integer' ? Math.round(n) : n;
}

/** State values the device reported. obd_dtc_number falls back to the number of codes in `dtcs`. */
export function readStates(latest: LatestAttrs): StateReading[] {
  const out: StateReading[] = [];
  for (const rule of STATES) {
    const entry = latest[rule.attr];
    if (!entry) continue;
    const value = asState(entry[0], rule.kind);
    if (value !== undefined) out.push({ name: rule.name, value, time: entry[1] });
  }
  const dtcs = latest.dtcs;
  if (dtcs && !out.some((s) => s.name === 'obd_dtc_number')) {
    out.push({ name: 'obd_dtc_number', value: String(dtcs[0]).split(/[\s,]+/).filter(Boolean).length, time: dtcs[1] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Digital inputs

export interface InputState {
  type: string;
  name: string | null;
  status: boolean;
  /** 1-based input; 0 for a state the device reports itself rather than as a numbered input. */
  input_number: number;
}

/** Attributes with a semantic input type. `ignition` is one per tracker. */
const SEMANTIC: Array<{ attr: string; type: string; name: string }> = [
  { attr: 'ignition', type: 'ignition', name: 'Ignition' },
  { attr: 'door', type: 'door', name: 'Door' },
  { attr: 'armed', type: 'car_alarm', name: 'Car alarm' },
];

/**
 * Numbered on/off lines in order: `<prefix><n>` attributes, and the bit mask attribute (bit 0 =
 * line 1) where a protocol reports a mask. A named `<prefix><n>` wins over the mask bit when it is newer.
 */
function readLines(latest: LatestAttrs, maskAttr: string, prefix: string, minBits: number): { lines: boolean[]; time: number | null } {
  const values = new Map<number, [boolean, number]>();
  let time: number | null = null;
  const seen = (t: number) => (time = time === null ? t : Math.max(time, t));
  const mask = latest[maskAttr];
  const maskValue = mask ? toNumber(mask[0]) : undefined;
  if (mask && maskValue !== undefined) {
    const bits = Math.max(minBits, Math.floor(maskValue).toString(2).length);
    for (let i = 0; i < bits; i++) values.set(i + 1, [Math.floor(maskValue / 2 ** i) % 2 === 1, mask[1]]);
    seen(mask[1]);
  }
  // the live channel builds this for every changed tracker: no regex or entry arrays per attribute
  for (const attr in latest) {
    if (!attr.startsWith(prefix) || !NUMBER.test(attr.slice(prefix.length))) continue;
    const n = Number(attr.slice(prefix.length));
    if (n < 1 || n > 64) continue;
    const [v, t] = latest[attr];
    const prev = values.get(n);
    if (!prev || t >= prev[1]) values.set(n, [v === true || (typeof v === 'number' && v !== 0), t]);
    seen(t);
  }
  let count = 0;
  for (const n of values.keys()) if (n > count) count = n;
  const lines: boolean[] = [];
  for (let i = 1; i <= count; i++) lines.push(values.get(i)?.[0] ?? false);
  return { lines, time };
}
const NUMBER = /^\d+$/;

/** Digital inputs in order (`in<n>` and the `input` mask) and the semantic states (ignition, door, car alarm). */
export function readInputs(latest: LatestAttrs, protocol: string): { inputs: boolean[]; states: InputState[]; time: number | null } {
  const { lines: inputs, time: linesTime } = readLines(latest, 'input', 'in', PROTOCOL_RULES[protocol]?.inputBits ?? 8);
  let time = linesTime;
  const states: InputState[] = [];
  for (const s of SEMANTIC) {
    const e = latest[s.attr];
    if (!e || typeof e[0] !== 'boolean') continue;
    states.push({ type: s.type, name: s.name, status: e[0], input_number: 0 });
    time = time === null ? e[1] : Math.max(time, e[1]);
  }
  inputs.forEach((status, i) => states.push({ type: 'custom', name: null, status, input_number: i + 1 }));
  return { inputs, states, time };
}

/** Digital outputs in order: `out<n>` attributes and the `output` bit mask. */
export function readOutputs(latest: LatestAttrs): { outputs: boolean[]; time: number | null } {
  const { lines, time } = readLines(latest, 'output', 'out', 0);
  return { outputs: lines, time };
}

// ---------------------------------------------------------------------------------------------
// Counters

export interface CounterReading {
  type: 'odometer' | 'fuel_consumed' | 'engine_hours';
  value: number;
  time: number;
}

/** Counter -> attributes in order of preference, and the conversion to the answer's unit. */
const COUNTERS: Array<{ type: CounterReading['type']; attrs: string[]; convert: (v: number) => number }> = [
  { type: 'odometer', attrs: ['odometer', 'totalDistance', 'obdOdometer'], convert: m2km }, // metres -> km
  { type: 'fuel_consumed', attrs: ['fuelUsed'], convert: (v) => v }, // litres
  { type: 'engine_hours', attrs: ['hours'], convert: ms2h }, // ms -> hours
];

export function readCounters(latest: LatestAttrs): CounterReading[] {
  const out: CounterReading[] = [];
  for (const c of COUNTERS) {
    const attr = c.attrs.find((a) => latest[a] && toNumber(latest[a][0]) !== undefined);
    if (!attr) continue;
    const [v, time] = latest[attr];
    out.push({ type: c.type, value: round(c.convert(toNumber(v)!)), time });
  }
  return out;
}
