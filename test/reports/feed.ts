/**
 * Journeys for the report tests: points of test/telemetry/journeys.ts sent as a Teltonika tracker
 * would send them, through the real gateway over TCP, then processed by the real telemetry core.
 */
import net from 'node:net';
import { avlPacket, loginPacket } from '../../src/simulator/devices/teltonika.ts';
import type { SimFix } from '../../src/simulator/types.ts';
import type { Point } from '../../src/telemetry/types.ts';

export function simFix(p: Point): SimFix {
  return {
    time: p.time,
    lat: p.lat,
    lng: p.lng,
    altitude: 100,
    speed: p.speed,
    course: Number.isFinite(p.course) ? p.course : 0,
    satellites: 9,
    hdop: 1,
    ignition: p.ignition ?? true,
    motion: p.speed > 0,
    power: 13.8,
    battery: 4.1,
    batteryLevel: 90,
    fuelLevel: 50,
    odometer: 0,
    inputs: p.ignition === false ? 0 : 1,
    rssi: 4,
    cell: { mcc: 246, mnc: 1, lac: 1, cid: 1 },
    event: 0,
  };
}

/** Send points (login, then packets of 50 records), waiting for every acknowledgement. */
export async function sendPoints(port: number, imei: string, points: Point[]): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let got = Buffer.alloc(0);
  socket.on('data', (d) => (got = Buffer.concat([got, d])));
  const wait = async (n: number) => {
    for (let i = 0; i < 6000 && got.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    if (got.length < n) throw new Error('no ACK');
  };
  try {
    socket.write(loginPacket(imei));
    await wait(1);
    let expected = 1;
    for (let i = 0; i < points.length; i += 50) {
      socket.write(avlPacket(points.slice(i, i + 50).map(simFix)));
      expected += 4;
      await wait(expected);
    }
  } finally {
    socket.destroy();
  }
}
