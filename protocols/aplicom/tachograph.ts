/** Aplicom protocols E (tachograph), F (CAN/FMS vehicle data) and H (histograms): attributes only. */
import { Attr } from '../attributes.ts';
import type { Reader } from '../binary.ts';
import type { DeviceRecord } from '../types.ts';

const text = (r: Reader, n: number) => r.ascii(n).replace(/\0/g, '').trim();

export function decodeE(r: Reader, rec: DeviceRecord, selector: number): void {
  const a = rec.attributes;
  const has = (bit: number) => (selector & bit) !== 0;
  if (has(0x0008)) a.tachographEvent = r.u16();
  if (has(0x0004)) rec.time = r.u32() * 1000;
  if (has(0x0010)) {
    const [s, m, h, mo, d, y] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
    a.tachographTime = `${s}s ${m}m ${h}h ${mo}M ${d}D ${y}Y ${r.i8()}m ${r.i8()}h`;
  }
  Object.assign(a, { workState: r.u8(), driver1State: r.u8(), driver2State: r.u8() });
  if (has(0x0020)) a.tachographStatus = r.u8();
  if (has(0x0040)) a[Attr.obdSpeed] = r.u16() / 256;
  if (has(0x0080)) a.obdOdometer = r.u32() * 5;
  if (has(0x0100)) a.tripOdometer = r.u32() * 5;
  if (has(0x8000)) a.kFactor = r.u16() / 1000;
  if (has(0x0200)) a[Attr.rpm] = r.u16() * 0.125;
  if (has(0x0400)) a.extraInfo = r.u16();
  if (has(0x0800)) a[Attr.vin] = text(r, 18);
  for (const [bit, key] of [[0x2000, 'card1'], [0x4000, 'card2']] as const) {
    if (!has(bit)) continue;
    r.skip(2); // card type, country code
    const card = text(r, 20);
    if (card) a[key] = card;
  }
  if (has(0x10000)) {
    const count = r.u8();
    for (let i = 1; i <= count; i++) {
      a[`driver${i}`] = text(r, 22);
      a[`driverTime${i}`] = r.u32();
    }
  }
}

export function decodeF(r: Reader, rec: DeviceRecord, selector: number): void {
  const a = rec.attributes;
  const has = (bit: number) => (selector & bit) !== 0;
  if (has(0x0004)) rec.time = r.u32() * 1000;
  r.skip(1); // data validity
  if (has(0x0008)) Object.assign(a, { [Attr.rpm]: r.u16(), rpmMax: r.u16(), rpmMin: r.u16() });
  if (has(0x0010)) Object.assign(a, { engineTemp: r.i16(), engineTempMax: r.i16(), engineTempMin: r.i16() });
  if (has(0x0020)) Object.assign(a, { [Attr.hours]: r.u32() * 3_600_000, serviceDistance: r.i32(), driverActivity: r.u8(), [Attr.throttle]: r.u8(), [Attr.fuel]: r.u8() });
  if (has(0x0040)) a[Attr.fuelUsed] = r.u32();
  if (has(0x0080)) a[Attr.odometer] = r.u32();
  if (has(0x0100)) Object.assign(a, { [Attr.obdSpeed]: r.u8(), speedMax: r.u8(), speedMin: r.u8(), hardBraking: r.u8() });
  if (has(0x0200)) Object.assign(a, { tachographSpeed: r.u8(), driver1State: r.u8(), driver2State: r.u8(), tachographStatus: r.u8(), overspeedCount: r.u8() });
  // FMS: engine hours in 0.05 h, rpm 0.125, speed 1/256 km/h, fuel used 0.5 l, level 0.4 %.
  if (has(0x0800)) Object.assign(a, { [Attr.hours]: r.u32() * 0.05 * 3_600_000, [Attr.rpm]: r.u16() * 0.125, [Attr.obdSpeed]: r.u16() / 256, [Attr.fuelUsed]: r.u32() * 0.5, [Attr.fuel]: r.u8() * 0.4 });
  if (has(0x1000)) {
    a.ambientTemperature = r.u16() * 0.03125 - 273;
    r.skip(2); // fuel rate
    a.fuelEconomy = r.u16() / 512;
    a[Attr.fuelConsumption] = r.u32() / 1000;
    r.skip(1); // PTO
  }
  if (has(0x2000)) r.skip(r.u8()); // driver identification
  if (has(0x4000)) {
    Object.assign(a, { torque: r.u8(), brakePressure1: r.u8() * 8, brakePressure2: r.u8() * 8, grossWeight: r.u16() * 10, exhaustFluid: r.u8() * 0.4 });
    r.skip(1);
    Object.assign(a, { retarderTorque: r.u8(), retarderSelection: r.u8() * 0.4 });
    r.skip(32); // tell-tale blocks
  }
  if (has(0x8000)) {
    Object.assign(a, { parkingBrakeStatus: r.u8(), doorStatus: r.u8() });
    r.skip(8);
    Object.assign(a, { alternatorStatus: r.u8(), selectedGear: r.u8(), currentGear: r.u8() });
    r.skip(8); // air suspension pressure
  }
  if (has(0x0400)) {
    const count = r.u8();
    for (let i = 0; i < count; i++) a[`axle${i}`] = r.u16();
  }
}

/** Histograms: per block its index, n × m cells (percent halves or counts), total and limits. */
export function decodeH(r: Reader, rec: DeviceRecord, selector: number): void {
  const a = rec.attributes;
  const has = (bit: number) => (selector & bit) !== 0;
  if (has(0x0004)) rec.time = r.u32() * 1000;
  if (has(0x0040)) r.skip(4); // reset time
  if (has(0x2000)) r.skip(2); // snapshot counter
  for (let i = 1; r.remaining > 0; i++) {
    const h = (k: string) => `h${i}${k}`;
    a[h('Index')] = r.u8();
    r.skip(2);
    const n = r.u8();
    const m = r.u8();
    Object.assign(a, { [h('XLength')]: n, [h('YLength')]: m });
    if (has(0x0008)) Object.assign(a, { [h('XType')]: r.u8(), [h('YType')]: r.u8(), [h('Parameters')]: r.u8() });
    const percent = has(0x0020);
    const cells: string[] = [];
    for (let k = 0; k < n * m; k++) cells.push(percent ? `${r.u8() * 0.5}%` : String(r.u16()));
    a[h('Data')] = cells.join(' ');
    a[h('Total')] = r.u32();
    if (has(0x0010)) {
      const size = r.u8();
      const limits = (count: number) => {
        const out: number[] = [];
        for (let k = 1; k < count; k++) if (size === 1) out.push(r.i8());
        else if (size === 2) out.push(r.i16());
        return out.join(' ');
      };
      a[h('XLimits')] = limits(n);
      a[h('YLimits')] = limits(m);
    }
  }
}
