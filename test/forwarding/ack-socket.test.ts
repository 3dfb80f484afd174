/**
 * AckSocket (src/forwarding/ack-socket.ts), the connection of the protocols whose receiver answers
 * every packet: answers in order whatever way they are cut into reads (several sockets reading into
 * one shared buffer), several packets in one write with their answers, the answer deadline counted
 * from the last send or answer, and a broken connection failing everything that waits.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AckSocket, lineFramer } from '../../src/forwarding/ack-socket.ts';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A receiver that hands each connection's received lines to `onLine`. */
async function receiver(onLine: (line: string, socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    let rest = '';
    socket.on('data', (d) => {
      const lines = (rest + d.toString('latin1')).split('\n');
      rest = lines.pop()!;
      for (const l of lines) onLine(l.replace(/\r$/, ''), socket);
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

const text = (answers: Buffer[]) => answers.map((a) => a.toString('latin1'));

describe('AckSocket', () => {
  it('takes answers in order however they are cut, on several sockets at once', async () => {
    // answers are written a byte at a time (each socket's in order), and the three sockets' bytes interleave
    const queues = new Map<Socket, Promise<void>>();
    const port = await receiver((line, socket) => {
      let q = queues.get(socket) ?? Promise.resolve();
      for (const c of `#A${line}\r\n`) q = q.then(() => new Promise((r) => setTimeout(() => (socket.write(c), r()), 1)));
      queues.set(socket, q);
    });
    const sockets = await Promise.all([1, 2, 3].map(() => AckSocket.open('127.0.0.1', port, lineFramer, 3000)));
    const got = await Promise.all(sockets.map((s, k) => s.send(`${k}-1\n${k}-2\n${k}-3\n`, 3)));
    expect(got.map(text)).toEqual([0, 1, 2].map((k) => [`#A${k}-1`, `#A${k}-2`, `#A${k}-3`]));
    // requests and sends of one tick, in order
    const [a, b, c] = await Promise.all([sockets[0].request('x\n'), sockets[0].send('y\nz\n', 2), sockets[0].request('w\n')]);
    expect([a.toString(), text(b), c.toString()]).toEqual(['#Ax', ['#Ay', '#Az'], '#Aw']);
    // answers that came in one read are copied out of the shared buffer before the next read
    const port2 = await receiver((line, socket) => line === 'go' && socket.write('#A1\n#A2\n#A3\n'));
    const s2 = await AckSocket.open('127.0.0.1', port2, lineFramer, 3000);
    const three = await s2.send('go\n', 3);
    await Promise.all(sockets.map((s) => s.send('again\n', 1)));
    expect(text(three)).toEqual(['#A1', '#A2', '#A3']);
    for (const s of [...sockets, s2]) s.close();
  });

  it('fails what waits when no answer comes within the timeout, counted from the last answer', async () => {
    // the second answer of each send comes 150 ms after the first: within a 250 ms deadline each time
    const port = await receiver((line, socket) => {
      if (line === 'slow') {
        socket.write('#A1\n');
        setTimeout(() => socket.write('#A2\n'), 150);
      }
    });
    const s = await AckSocket.open('127.0.0.1', port, lineFramer, 250);
    expect(text(await s.send('slow\n', 2))).toEqual(['#A1', '#A2']);
    // idle longer than the deadline: nothing waited, nothing failed
    await new Promise((r) => setTimeout(r, 400));
    expect(s.closed).toBe(false);
    expect(text(await s.send('slow\n', 2))).toEqual(['#A1', '#A2']);
    const t0 = Date.now();
    await expect(s.send('never\n', 1)).rejects.toThrow(/no answer within 250 ms/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
    expect(s.closed).toBe(true);
    await expect(s.send('after\n', 1)).rejects.toThrow(/no answer/);
  });

  it('an answer nothing was sent for, or a closed connection, fails everything that waits', async () => {
    const port = await receiver((line, socket) => {
      if (line === 'extra') socket.write('#A1\n#A2\n');
      if (line === 'close') socket.destroy();
    });
    const s = await AckSocket.open('127.0.0.1', port, lineFramer, 3000);
    await expect(s.send('extra\n', 1)).resolves.toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.closed).toBe(true);
    await expect(s.send('x\n', 1)).rejects.toThrow(/nothing was sent for/);
    const s2 = await AckSocket.open('127.0.0.1', port, lineFramer, 3000);
    await expect(Promise.all([s2.send('a\nb\n', 2), s2.send('close\n', 1)])).rejects.toThrow(/closed/);
  });
});
