/**
 * BCE record fields, selected by up to four 15-bit masks (bit 15 of a mask: another mask follows).
 * Each bit is a field of fixed size; unknown ones are skipped by size so the rest stays aligned.
 */
import { Attr, indexed } from '../attributes.ts';
import type { Reader } from '../binary.ts';
import type { DeviceRecord } from '../types.ts';

const bit = (mask: number, n: number) => (mask & (1 << n)) !== 0;

export function mask1(r: Reader, mask: number, rec: DeviceRecord): void {
  const a = rec.attributes;
  if (bit(mask, 0)) {
    const lng = r.f32le();
    const lat = r.f32le();
    if (Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(rec, { lat, lng, valid: true });
    rec.speed = r.u8();
    const status = r.u8();
    rec.satellites = status & 0x0f;
    rec.hdop = status >> 4;
    rec.course = r.u8() * 2;
    rec.altitude = r.u16le();
    a[Attr.odometer] = r.u32le();
  }
  if (bit(mask, 1)) a[Attr.input] = r.u16le();
  for (let i = 1; i <= 8; i++) if (bit(mask, i + 1)) a[indexed.adc(i)] = r.u16le();
  if (bit(mask, 10)) r.skip(4);
  if (bit(mask, 11)) r.skip(4);
  if (bit(mask, 12)) a.fuel1 = r.u16();
  if (bit(mask, 13)) a.fuel2 = r.u16();
  if (bit(mask, 14)) {
    const mcc = r.u16le();
    const mnc = r.u8();
    const lac = r.u16le();
    const cid = r.u16le();
    r.u8(); // timing advance
    rec.cells = [{ mcc, mnc, lac, cid, rssi: -r.u8() }];
  }
}

export function mask2(r: Reader, mask: number, rec: DeviceRecord): void {
  const a = rec.attributes;
  if (bit(mask, 0)) r.u16le(); // wheel speed
  if (bit(mask, 1)) r.u8(); // accelerator pedal
  if (bit(mask, 2)) a[Attr.fuelUsed] = r.u32le() * 0.5;
  if (bit(mask, 3)) a[Attr.fuel] = r.u8();
  if (bit(mask, 4)) a[Attr.rpm] = r.u16le() * 0.125;
  if (bit(mask, 5)) a[Attr.hours] = r.u32le();
  if (bit(mask, 6)) a[Attr.odometer] = r.u32le();
  if (bit(mask, 7)) a[Attr.coolantTemp] = r.i8() - 40;
  if (bit(mask, 8)) a.fuel2 = r.u8();
  if (bit(mask, 9)) a[Attr.engineLoad] = r.u8();
  if (bit(mask, 10)) a.serviceOdometer = r.u16le();
  if (bit(mask, 11)) r.skip(8); // sensors
  if (bit(mask, 12)) r.u16le(); // ambient air temperature
  if (bit(mask, 13)) r.skip(8); // trailer id
  if (bit(mask, 14)) a[Attr.fuelConsumption] = r.u16le();
}

export function mask3(r: Reader, mask: number, rec: DeviceRecord): void {
  const a = rec.attributes;
  if (bit(mask, 0)) r.u16le(); // fuel economy
  if (bit(mask, 1)) a[Attr.fuelConsumption] = r.u32le();
  if (bit(mask, 2)) a.axleWeight = r.u24le();
  if (bit(mask, 3)) r.u8(); // MIL status
  if (bit(mask, 4)) r.skip(20); // DTCs
  if (bit(mask, 5)) r.u16le();
  if (bit(mask, 6)) a[Attr.driverUniqueId] = String(r.buf.readBigUInt64LE(r.skip(8).pos - 8));
  if (bit(mask, 7)) a[indexed.temp(1)] = r.u16le() / 10 - 273;
  if (bit(mask, 8)) r.u16le(); // Dallas humidity
  for (const [n, b] of [[1, 9], [3, 10]] as const) {
    if (!bit(mask, b)) continue;
    a[indexed.fuel(n)] = r.u16le();
    a[`fuelTemp${n}`] = r.i8();
    a[indexed.fuel(n + 1)] = r.u16le();
    a[`fuelTemp${n + 1}`] = r.i8();
  }
  if (bit(mask, 11)) r.skip(21); // J1979 group 1
  if (bit(mask, 12)) r.skip(20); // J1979 DTCs
  if (bit(mask, 13)) r.skip(9); // J1708 group 1
  if (bit(mask, 14)) r.skip(21); // driving quality
}

export function mask4(r: Reader, mask: number, rec: DeviceRecord): void {
  const a = rec.attributes;
  if (bit(mask, 0)) r.u32le();
  if (bit(mask, 1)) r.skip(30); // LLS group 3
  if (bit(mask, 2)) r.u32le(); // instant fuel consumption
  if (bit(mask, 3)) r.skip(10); // axle weights
  if (bit(mask, 4)) r.u8();
  if (bit(mask, 5)) r.u16le();
  if (bit(mask, 6)) {
    a.maxAcceleration = r.u8() / 50;
    a.maxBraking = r.u8() / 50;
    a.maxCornering = r.u8() / 50;
  }
  if (bit(mask, 7)) r.skip(16);
  if (bit(mask, 8)) {
    for (let i = 1; i <= 4; i++) {
      const t = r.u16le();
      if (t > 0) a[indexed.temp(i)] = t / 10 - 273;
      r.skip(8);
    }
  }
  if (bit(mask, 9)) {
    a.driver1 = r.ascii(16).replace(/\0/g, '').trim();
    a.driver2 = r.ascii(16).replace(/\0/g, '').trim();
  }
  if (bit(mask, 10)) a[Attr.odometer] = r.u32le();
}
