/** A Teltonika device over a real TCP socket, for gateway tests: its packets and a collecting client. */
import net from 'node:net';

/** A real two-record Codec 8 Extended packet (test/gateway/teltonika.test.ts); the server answers 00000002. */
export const TELTONIKA_DATA = Buffer.from(
  '000000000000010e8e020000019769de9f9800015299f718b278040018007708000000000013000b00ef0100f00000150500c80000450100010100b30000020000030000b401017c00000500b5001a00b6000c004238d40043000000440000000200f10000539b00100000efc70001004e000000000000000000000000019769de5d3b00015299f718b27804001800770800002c350001000000000000000000012c3500700124050f4e65766572615f33000000000000000f067cd9f4110c4006020c8f0701340e020c1c24050f4e65766572615f31000000000000000f067cd9f411334606020c380701340e020c2624050f4e65766572615f32000000000000000f067cd9f411464706020c240701360e020c26020000a8b0',
  'hex',
);
export const imeiPacket = (imei: string) => Buffer.concat([Buffer.from([0, imei.length]), Buffer.from(imei)]);

/** Polls `cond` every 10 ms until it holds or `ms` passed; answers its last value. */
export async function until(cond: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return cond();
}

/** A TCP client that collects what the server sends and tells when the server closed; `name` is its address as the server sees it. */
export async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let received = Buffer.alloc(0);
  let closed = false;
  socket.on('data', (d) => (received = Buffer.concat([received, d])));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  return { socket, name: `127.0.0.1:${socket.localPort}`, received: () => received, closed: () => closed };
}
