/** Chat messages between users and trackers (spec: Chat). */
import type { DB } from './db.ts';

export interface ChatRow {
  id: number;
  tracker_id: number;
  source_id: number;
  type: 'INCOMING' | 'OUTGOING';
  status: 'PENDING' | 'DELIVERED';
  text: string;
  submit_time: number;
  update_time: number | null;
  employee_id: number | null;
  is_read: number;
}

export class ChatStore {
  private insertStmt;
  private listAsc;
  private listDesc;
  private pendingStmt;
  private deliveredStmt;
  private getStmt;
  private markReadStmt;
  private markTrackerReadStmt;
  private unreadStmt;
  private lastStmt;

  constructor(private db: DB) {
    this.insertStmt = db.prepare('INSERT INTO chat_messages (tracker_id, source_id, type, status, text, submit_time, update_time, employee_id, is_read) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const list = 'SELECT * FROM chat_messages WHERE tracker_id = ? AND submit_time BETWEEN ? AND ? ORDER BY submit_time';
    this.listAsc = db.prepare<[number, number, number, number], ChatRow>(`${list} ASC, id ASC LIMIT ?`);
    this.listDesc = db.prepare<[number, number, number, number], ChatRow>(`${list} DESC, id DESC LIMIT ?`);
    this.pendingStmt = db.prepare<[number], ChatRow>("SELECT * FROM chat_messages WHERE source_id = ? AND status = 'PENDING' AND type = 'OUTGOING' ORDER BY id");
    this.deliveredStmt = db.prepare("UPDATE chat_messages SET status = 'DELIVERED', update_time = ? WHERE id = ? AND status = 'PENDING'");
    this.getStmt = db.prepare<[number], ChatRow>('SELECT * FROM chat_messages WHERE id = ?');
    this.markReadStmt = db.prepare('UPDATE chat_messages SET is_read = 1 WHERE id = ?');
    this.markTrackerReadStmt = db.prepare("UPDATE chat_messages SET is_read = 1 WHERE tracker_id = ? AND type = 'INCOMING' AND is_read = 0");
    this.unreadStmt = db.prepare<[number], { n: number }>("SELECT COUNT(*) AS n FROM chat_messages WHERE tracker_id = ? AND type = 'INCOMING' AND is_read = 0");
    this.lastStmt = db.prepare<[number], { t: number | null }>('SELECT MAX(submit_time) AS t FROM chat_messages WHERE tracker_id = ?');
  }

  addOutgoing(trackerId: number, sourceId: number, text: string, now: number): number {
    return Number(this.insertStmt.run(trackerId, sourceId, 'OUTGOING', 'PENDING', text, now, null, null, 1).lastInsertRowid);
  }
  addIncoming(trackerId: number, sourceId: number, text: string, time: number, employeeId: number | null): number {
    return Number(this.insertStmt.run(trackerId, sourceId, 'INCOMING', 'DELIVERED', text, time, time, employeeId, 0).lastInsertRowid);
  }
  list(trackerId: number, from: number, to: number, limit: number, ascending: boolean): ChatRow[] {
    return (ascending ? this.listAsc : this.listDesc).all(trackerId, from, to, limit);
  }
  pending(sourceId: number): ChatRow[] {
    return this.pendingStmt.all(sourceId);
  }
  delivered(id: number, at: number): void {
    this.deliveredStmt.run(at, id);
  }
  get(id: number): ChatRow | undefined {
    return this.getStmt.get(id);
  }
  markRead(ids: number[]): void {
    this.db.transaction(() => ids.forEach((id) => this.markReadStmt.run(id)))();
  }
  markTrackersRead(trackerIds: number[]): void {
    this.db.transaction(() => trackerIds.forEach((id) => this.markTrackerReadStmt.run(id)))();
  }
  unread(trackerId: number): number {
    return this.unreadStmt.get(trackerId)!.n;
  }
  lastTime(trackerId: number): number | null {
    return this.lastStmt.get(trackerId)!.t;
  }
}
