/**
 * IDPL (Indian AIS-140 units) text reports `*ID<code>,<imei>,<ddMMyy>,<HHmmss>,<A|V>,<ddmm.mmmm>,<N|S>,
 * <dddmm.mmmm>,<E|W>,<speed kn>,<course>,<sats>,<gsm>,<vehicle status A|N|S>,<main power 0|1>,<battery V>,
 * <sos>,<tamper>,<ac><ignition>,<output>,<adc 1>,<adc 2>,<firmware>,<L live | R stored>,<crc>#`.
 * The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { degMin, delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^\*ID(\d+),(\d+),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),([AV]),(\d\d)(\d\d)\.?(\d+),([NS]),(\d{3})(\d\d)\.?(\d+),([EW]),(\d{1,3}\.\d\d),(\d{1,3}\.\d\d),(\d{1,2}),(\d{1,3}),([ANS]),([01]),(\d\.\d\d),([01]),([01]),([01])([01]),([012]),(\d{1,3}),(\d{1,3}),([0-9A-Z]{3}),([LR]),[0-9A-Fa-f]{4}#/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const a: DeviceRecord['attributes'] = {
    type: Number(m[1]),
    [Attr.rssi]: Number(m[21]),
    vehicleStatus: m[22],
    [Attr.charge]: m[23] === '1',
    [Attr.battery]: Number(m[24]),
    acStatus: Number(m[27]),
    [Attr.ignition]: m[28] === '1',
    [Attr.output]: Number(m[29]),
    [indexed.adc(1)]: Number(m[30]),
    [indexed.adc(2)]: Number(m[31]),
    versionFw: m[32],
    [Attr.archive]: m[33] === 'R',
  };
  if (m[25] === '1') a[Attr.alarm] = Alarm.sos;
  else if (m[26] === '1') a[Attr.alarm] = Alarm.tampering;
  return {
    deviceId: m[2],
    records: [
      {
        time: utc(Number(m[5]), Number(m[4]), Number(m[3]), Number(m[6]), Number(m[7]), Number(m[8])),
        valid: m[9] === 'A',
        lat: degMin(m[10], m[11], m[12], m[13]),
        lng: degMin(m[14], m[15], m[16], m[17]),
        speed: knotsToKmh(Number(m[18])),
        course: Number(m[19]) % 360,
        satellites: Number(m[20]),
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'idpl',
  defaultPort: 5110,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('idpl', [0x23], MAX_FRAME, true),
  decode,
  commands: [],
};
