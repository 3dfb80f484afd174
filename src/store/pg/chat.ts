/** The PostgreSQL engine's chat messages between users and trackers (the SQLite engine's chat.ts: the same answers). */
import type { Area } from '../contract.ts';
import type { ChatStore, ChatRow } from '../chat.ts';
import type { Sql } from './connect.ts';

export class PgChatStore implements Area<ChatStore> {
  constructor(private sql: Sql) {}
  private async insert(m: Omit<ChatRow, 'id'>): Promise<number> {
    return (await this.sql`INSERT INTO chat_messages ${this.sql(m)} RETURNING id`)[0].id as number;
  }
  async addOutgoing(trackerId: number, sourceId: number, text: string, now: number): Promise<number> {
    return this.insert({ tracker_id: trackerId, source_id: sourceId, type: 'OUTGOING', status: 'PENDING', text, submit_time: now, update_time: null, employee_id: null, is_read: 1 });
  }
  async addIncoming(trackerId: number, sourceId: number, text: string, time: number, employeeId: number | null): Promise<number> {
    return this.insert({ tracker_id: trackerId, source_id: sourceId, type: 'INCOMING', status: 'DELIVERED', text, submit_time: time, update_time: time, employee_id: employeeId, is_read: 0 });
  }
  async list(trackerId: number, from: number, to: number, limit: number, ascending: boolean): Promise<ChatRow[]> {
    // A negative limit is no limit, as in SQLite.
    const n = limit < 0 ? null : limit;
    const rows = ascending
      ? await this.sql<ChatRow[]>`SELECT * FROM chat_messages WHERE tracker_id = ${trackerId} AND submit_time BETWEEN ${from} AND ${to} ORDER BY submit_time ASC, id ASC LIMIT ${n}`
      : await this.sql<ChatRow[]>`SELECT * FROM chat_messages WHERE tracker_id = ${trackerId} AND submit_time BETWEEN ${from} AND ${to} ORDER BY submit_time DESC, id DESC LIMIT ${n}`;
    return [...rows];
  }
  async pending(sourceId: number): Promise<ChatRow[]> {
    return [...(await this.sql<ChatRow[]>`SELECT * FROM chat_messages WHERE source_id = ${sourceId} AND status = 'PENDING' AND type = 'OUTGOING' ORDER BY id`)];
  }
  async delivered(id: number, at: number): Promise<void> {
    await this.sql`UPDATE chat_messages SET status = 'DELIVERED', update_time = ${at} WHERE id = ${id} AND status = 'PENDING'`;
  }
  async get(id: number): Promise<ChatRow | undefined> {
    return (await this.sql<ChatRow[]>`SELECT * FROM chat_messages WHERE id = ${id}`)[0];
  }
  async markRead(ids: number[]): Promise<void> {
    if (ids.length) await this.sql`UPDATE chat_messages SET is_read = 1 WHERE id = ANY(${ids}::bigint[])`;
  }
  async markTrackersRead(trackerIds: number[]): Promise<void> {
    if (trackerIds.length) await this.sql`UPDATE chat_messages SET is_read = 1 WHERE tracker_id = ANY(${trackerIds}::bigint[]) AND type = 'INCOMING' AND is_read = 0`;
  }
  async unread(trackerId: number): Promise<number> {
    return (await this.sql`SELECT count(*) AS n FROM chat_messages WHERE tracker_id = ${trackerId} AND type = 'INCOMING' AND is_read = 0`)[0].n as number;
  }
  async lastTime(trackerId: number): Promise<number | null> {
    return (await this.sql`SELECT max(submit_time) AS t FROM chat_messages WHERE tracker_id = ${trackerId}`)[0].t as number | null;
  }
}
