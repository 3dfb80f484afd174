/** Aplicom D event data (the bytes an event carries after the fields) and CAN data (event 119). */
import { Attr } from '../attributes.ts';
import type { Reader } from '../binary.ts';
import type { AttrValue, DeviceRecord } from '../types.ts';

/** Bytes each event carries, for the events that carry a fixed number. */
const EVENT_BYTES: Record<number, number> = { 2: 1, 40: 1, 9: 3, 31: 2, 32: 2, 38: 36, 113: 5, 121: 8, 142: 8, 130: 4 };

export function decodeEventData(r: Reader, rec: DeviceRecord, event: number): void {
  if (EVENT_BYTES[event]) r.skip(EVENT_BYTES[event]);
  // The data of event 119 stays in the frame: the CAN reader may read it next.
  else if (event === 119) rec.attributes.eventData = r.buf.toString('hex', r.pos, r.pos + Math.min(r.remaining, 1024));
  else if (event === 188) decodeEb(r, rec.attributes);
}

/** EB (trailer brake system) blocks: towed position, type, length, data. */
function decodeEb(r: Reader, a: Record<string, AttrValue>): void {
  if (r.u8() !== 0x45 || r.u8() !== 0x42) return;
  a.versionFw = r.u8();
  a[Attr.event] = r.u16();
  a.dataValidity = r.u8();
  a.towed = r.u8();
  r.skip(2);
  while (r.remaining > 0) {
    r.skip(1); // towed position
    const type = r.u8();
    const length = r.u8();
    const end = r.pos + length;
    if (end > r.end) break;
    switch (type) {
      case 0x01:
        a.brakeFlags = r.hex(length);
        break;
      case 0x02:
        Object.assign(a, { wheelSpeed: r.u16() / 256, wheelSpeedDifference: r.u16() / 256 - 125, lateralAcceleration: r.u8() / 10 - 12.5, vehicleSpeed: r.u16() / 256 });
        break;
      case 0x03:
        a.axleWeight = r.u16() * 2;
        break;
      case 0x04:
        Object.assign(a, { tirePressure: r.u8() * 10, pneumaticPressure: r.u8() * 5 });
        break;
      case 0x05:
        Object.assign(a, { brakeLining: r.u8() * 0.4, brakeTemperature: r.u8() * 10 });
        break;
      case 0x06:
        Object.assign(a, { [Attr.odometer]: r.u32() * 5, tripOdometer: r.u32() * 5, serviceOdometer: (r.u32() - 2105540607) * 5 });
        break;
      case 0x0a:
        Object.assign(a, { absStatusCounter: r.u16(), atvbStatusCounter: r.u16(), vdcActiveCounter: r.u16() });
        break;
      case 0x0b:
        a.brakeMinMaxData = r.hex(length);
        break;
      case 0x0c:
        a.missingPgn = r.hex(length);
        break;
      case 0x0d:
        r.skip(1);
        a.towedDetectionStatus = r.u32();
        break;
      default:
    }
    r.pos = end;
  }
}

const i16le = (b: Buffer, o: number) => b.readInt16LE(o);

/** CAN data of a refrigeration unit (decoder config `can`): values of 8 bytes, then their CAN ids. */
export function decodeCan(r: Reader, a: Record<string, AttrValue>): void {
  r.skip(3); // packet identifier
  a.versionFw = r.u8();
  const count = r.u8();
  r.skip(1 + 2 + 4 + 8); // batch count, selector bit, timestamp, reserved
  const values: Buffer[] = [];
  for (let i = 0; i < count; i++) values.push(r.bytes(8));
  for (const v of values) {
    switch (r.i32()) {
      case 0x20d:
        Object.assign(a, { [Attr.rpm]: i16le(v, 0), dieselTemperature: i16le(v, 2) / 10, batteryVoltage: i16le(v, 4) / 100, supplyAirTempDep1: i16le(v, 6) / 10 });
        break;
      case 0x30d:
        a.activeAlarm = v.toString('hex');
        break;
      case 0x40c:
        Object.assign(a, { airTempDep1: i16le(v, 0) / 10, airTempDep2: i16le(v, 2) / 10 });
        break;
      case 0x40d:
        a.coldUnitState = v.toString('hex');
        break;
      case 0x50c:
        Object.assign(a, { defrostTempDep1: i16le(v, 0) / 10, defrostTempDep2: i16le(v, 2) / 10 });
        break;
      case 0x50d:
        Object.assign(a, { condenserPressure: i16le(v, 0) / 10, suctionPressure: i16le(v, 2) / 10 });
        break;
      case 0x58c: {
        const value = v.readInt32LE(4);
        const names: Record<number, [string, number]> = { 1: ['setpointZone1', 10], 2: ['setpointZone2', 10], 5: ['unitType', 1], 0x13: ['dieselHours', 3600], 0x14: ['electricHours', 3600], 0x17: ['serviceIndicator', 1], 0x18: ['softwareVersion', 100] };
        const n = names[v[3]];
        if (n) a[n[0]] = n[1] === 3600 ? Math.trunc(value / 3600) : value / n[1];
        break;
      }
      default:
    }
  }
}
