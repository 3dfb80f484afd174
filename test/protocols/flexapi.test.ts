import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/flexapi.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const line = (topic: string, payload: object) => Buffer.from(`$${JSON.stringify({ topic, payload })}xx`);

describe('flexapi', () => {
  it('decodes a fix and answers nothing', () => {
    const c = ctx();
    const r = protocol.decode!(line('v1/VF3102021113001/gnss/info', { 'gnss.ts': 1639713510, 'gnss.latitude': 30.5875, 'gnss.longitude': 104.05365, 'gnss.altitude': 391, 'gnss.speed': 10, 'gnss.heading': 90, 'gnss.hdop': 1.1, 'gnss.fix': 4, 'gnss.num_sv': 10 }), c);
    expect(r.deviceId).toBe('VF3102021113001');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(p).toMatchObject({ time: 1639713510000, valid: true, lat: 30.5875, lng: 104.05365, altitude: 391, course: 90, satellites: 10, hdop: 1.1 });
    expect(p.speed).toBeCloseTo(18.52, 6);
    // a later IO message is placed at that fix
    const [io] = protocol.decode!(line('v1/VF3102021113001/io/info', { 'io.ts': 1639713600, 'io.AI1': 1.5, 'io.DI1': 1, 'io.DI1_pullup': 0, 'io.DO2': 0, 'io.IGT': 1 }), c).records!;
    expect(io).toMatchObject({ time: 1639713600000, lat: 30.5875, valid: false, attributes: { ignition: true, adc1: 1.5, in1: true, out2: false } });
  });
  it('reads the serving cell of the modem', () => {
    const [p] = protocol.decode!(line('v1/X/cellular1/info', { 'modem1.ts': 1, 'modem1.operator': '46011', 'modem1.lac': 'EA00', 'modem1.cell_id': 'E779B81', 'modem1.rssi': 0, 'modem1.iccid': '8986' }), ctx()).records!;
    expect(p.cells).toEqual([{ mcc: 460, mnc: 11, lac: 0xea00, cid: 0xe779b81, rssi: 0 }]);
    expect(p.attributes).toMatchObject({ iccid: '8986', rssi: 0 });
  });
  it('frames by line', () => {
    expect(protocol.createFramer!().next(Buffer.from('${}xx\n${'))?.frame.toString()).toBe('${}xx');
  });
});
