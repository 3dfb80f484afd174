/**
 * Check-ins (spec: Check-in; Check-ins, base path /checkin; docs/checkins.md): read, list and
 * delete. Check-ins are created by the field app (src/checkins/checkins.ts, createCheckin).
 */
import { z } from 'zod';
import { parseSort } from '../core/conditions.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { formatDateTime } from '../core/time.ts';
import { deleteCheckins } from '../checkins/checkins.ts';
import { checkinsReport, type CheckinLine } from '../checkins/export.ts';
import { inlineReportFiles } from '../reports/render/index.ts';
import { geoEntitiesAt } from '../checkins/nearby.ts';
import type { CheckinRow } from '../store/checkins.ts';
import type { FileRow } from '../store/files.ts';
import { BlobStore } from '../files/blobs.ts';
import { baseUrl, fileView } from './file.ts';
import { defineCall, FileAnswer, type Services } from './kernel.ts';
import { conditionsParam, id } from './schemas.ts';
import { listWindow } from './task.ts';

/** Most trackers one checkin/list may name: more is 221. */
export const MAX_LISTED_TRACKERS = 10_000;
/** Most check-ins one file (checkin/list with format) holds; the table's header tells when more matched. */
export const MAX_FILE_CHECKINS = 5000;
const DAY = 86_400_000;

interface ViewContext {
  services: Services;
  timeZone: string;
  base: string;
  ownerId: number;
  nearby: boolean;
}

/** The spec's check-in objects for rows of one owner (files, form labels and nearby entities read in batches). */
export function checkinViews(rows: CheckinRow[], o: ViewContext): Array<Record<string, unknown>> {
  const { store } = o.services;
  const ids = rows.map((r) => r.id);
  const files = new Map<number, FileRow[]>(ids.map((i) => [i, []]));
  for (const f of store.files.ofCheckins(ids)) files.get(f.checkin_id!)!.push(f);
  const labels = store.checkins.formLabels([...new Set(rows.map((r) => r.form_id).filter((f): f is number => f !== null))]);
  const geo = o.nearby ? geoEntitiesAt(store) : undefined;
  return rows.map((c) => {
    const out: Record<string, unknown> = {
      id: c.id,
      marker_time: formatDateTime(c.marker_time, o.timeZone),
      user_id: c.user_id,
      tracker_id: c.tracker_id,
    };
    if (c.employee_id !== null) out.employee_id = c.employee_id;
    out.location = { lat: c.lat, lng: c.lng, address: c.address, precision: c.precision };
    if (c.comment !== null) out.comment = c.comment;
    out.files = files.get(c.id)!.map((f) => fileView(f, { timeZone: o.timeZone, base: o.base }));
    out.form_id = c.form_id;
    out.form_label = c.form_id === null ? null : (labels.get(c.form_id) ?? null);
    if (geo) Object.assign(out, geo.at(o.ownerId, c.lat, c.lng));
    return out;
  });
}

/** Check-ins as the lines of a file: labels, names and file links read in batches. */
function checkinLines(services: Services, ownerId: number, rows: CheckinRow[], base: string): CheckinLine[] {
  const { store } = services;
  const files = new Map<number, FileRow[]>(rows.map((r) => [r.id, []]));
  for (const f of store.files.ofCheckins(rows.map((r) => r.id))) files.get(f.checkin_id!)!.push(f);
  const forms = store.checkins.formLabels([...new Set(rows.map((r) => r.form_id).filter((f): f is number => f !== null))]);
  const trackers = new Map<number, string>();
  const employees = new Map<number, string>();
  const trackerLabel = (id: number) => trackers.get(id) ?? trackers.set(id, store.trackers.get(ownerId, id)?.label ?? String(id)).get(id)!;
  const employeeName = (id: number) => {
    if (!employees.has(id)) {
      const e = store.employees.get(ownerId, id);
      employees.set(id, e ? [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' ') : String(id));
    }
    return employees.get(id)!;
  };
  return rows.map((c) => ({
    time: c.marker_time,
    tracker: trackerLabel(c.tracker_id),
    employee: c.employee_id === null ? null : employeeName(c.employee_id),
    lat: c.lat,
    lng: c.lng,
    address: c.address,
    comment: c.comment,
    form: c.form_id === null ? null : (forms.get(c.form_id) ?? null),
    files: files.get(c.id)!.map((f) => ({ name: f.name, url: (fileView(f, { timeZone: 'UTC', base }).download_url as string | null) ?? null })),
  }));
}

const read = defineCall({
  path: 'checkin/read',
  summary: 'One check-in with its files.',
  right: 'employee_update',
  params: z.object({ checkin_id: id }),
  handler({ services, owner, user, params, request }) {
    const row = services.store.checkins.get(owner.id, params.checkin_id);
    if (!row) throw new DomainError(204, {}, `Entity not found: check-in ${params.checkin_id}`);
    const [value] = checkinViews([row], { services, timeZone: user.time_zone, base: baseUrl(services, request), ownerId: owner.id, nearby: false });
    return { value };
  },
});

const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();
const dateTime = z.string().regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, 'expected yyyy-MM-dd HH:mm:ss');

const list = defineCall({
  path: 'checkin/list',
  summary: `Check-ins matching all filters, one page, and the total count. 211 when from..to is longer than the tariff's maximum span; 217 for trackers missing, deleted or blocked; 221 over ${MAX_LISTED_TRACKERS} trackers; with format (pdf, xlsx) the same list as a file (at most ${MAX_FILE_CHECKINS} check-ins).`,
  right: 'employee_update',
  params: z.object({
    trackers: nullable(z.array(id).max(100_000)),
    from: nullable(dateTime),
    to: nullable(dateTime),
    conditions: nullable(conditionsParam),
    sort: nullable(z.array(z.string().max(100)).max(6)),
    location: nullable(z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180), radius: z.number().positive().max(20_100_000) })),
    limit: nullable(z.number().int().min(0).max(2_147_483_647)),
    offset: nullable(z.number().int().min(0).max(2_147_483_647)),
    format: nullable(z.enum(['pdf', 'xlsx'])),
    show_nearby_geo_entities: z.boolean().default(false),
  }),
  async handler({ services, owner, user, params: p, request }) {
    const { store } = services;
    const tz = user.time_zone;
    const { from, to } = listWindow(p, tz);
    if (from !== undefined) {
      const maxDays = store.tariffs.get(owner.tariff_id)?.max_time_span_days ?? 31;
      if ((to ?? services.now()) - from > maxDays * DAY) throw new DomainError(211, { max_time_span: `P${maxDays}D` }, `Requested time span is too big: at most ${maxDays} days`);
    }
    let trackers: number[] | undefined;
    if (p.trackers?.length) {
      trackers = [...new Set(p.trackers)];
      if (trackers.length > MAX_LISTED_TRACKERS) throw new DomainError(221, { limit: MAX_LISTED_TRACKERS }, `Device limit exceeded: at most ${MAX_LISTED_TRACKERS} trackers per call, ${trackers.length} given`);
      const bad = trackers.filter((t) => {
        const row = store.trackers.get(owner.id, t);
        return !row || row.blocked;
      });
      if (bad.length) throw new DomainError(217, { ids: bad }, `List contains non-existent entities: trackers ${bad.join(', ')}`);
    }
    const { rows, count } = store.checkins.list({
      userId: owner.id,
      trackers,
      from,
      to,
      conditions: p.conditions ?? undefined,
      timeZone: tz,
      location: p.location ?? undefined,
      sort: parseSort(p.sort ?? undefined),
      offset: p.offset ?? undefined,
      limit: p.format ? Math.min(p.limit ?? MAX_FILE_CHECKINS, MAX_FILE_CHECKINS) : (p.limit ?? undefined),
    });
    if (p.format) {
      const report = checkinsReport(checkinLines(services, owner.id, rows, baseUrl(services, request)), { now: services.now(), locale: user.locale, timeZone: tz, measurementSystem: user.measurement_system, from, to });
      if (rows.length < count) report.sheets[0].sections[0].header = `Check-ins ${(p.offset ?? 0) + 1}–${(p.offset ?? 0) + rows.length} of ${count}`;
      const file = await (services.reportFiles ?? inlineReportFiles).render(p.format, report, { headless: false });
      return new FileAnswer(file.body, file.contentType, `checkins.${file.extension}`);
    }
    return { list: checkinViews(rows, { services, timeZone: tz, base: baseUrl(services, request), ownerId: owner.id, nearby: p.show_nearby_geo_entities }), count };
  },
});

const remove = defineCall({
  path: 'checkin/delete',
  summary: 'Delete check-ins with their forms and files; 201 (nothing deleted) when any id is not one of the user\'s.',
  right: 'checkin_update',
  params: z.object({ checkin_ids: z.array(id).min(1).max(1000) }),
  async handler({ services, owner, params }) {
    await deleteCheckins({ store: services.store, blobs: new BlobStore(services.config.dataDir) }, owner.id, params.checkin_ids);
  },
});

export const checkinCalls = [read, list, remove];
