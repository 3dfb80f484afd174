/**
 * The stored body of a ready report (src/reports/model.ts): what the plugins built and the renderers
 * read. Plugin tests compare it exactly; report/tracker/retrieve answers it in the documented shape
 * (src/reports/documented.ts), tested in test/api/report.test.ts and test/api/documented/.
 */
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.ts';

export function storedReport(s: TestServer, reportId: number): any {
  const owner = s.sql.prepare('SELECT owner_id FROM reports WHERE id = ?').pluck().get(reportId) as number | undefined;
  const body = owner === undefined ? undefined : s.store.reports.body(owner, reportId);
  expect(body, `report ${reportId} has a body`).toBeDefined();
  return JSON.parse(gunzipSync(body!).toString('utf8'));
}
