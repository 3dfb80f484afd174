/**
 * The event types of the event log (issue 12; docs/events.md lists them with their members) and
 * their human text. One list: history/tracker/list checks `types` against it, reports and
 * notifications name types from it.
 */
import { PIPELINE_EVENT_TYPES } from '../telemetry/stages/events.ts';

/** Recorded by the telemetry core beside its stages' events: from the geofence visits. */
export const ZONE_EVENT_TYPES = ['zone_enter', 'zone_exit'] as const;
/** Recorded by the connection watcher (src/events/connection.ts). */
export const CONNECTION_EVENT_TYPES = ['connection_lost', 'connection_restored'] as const;
/** Recorded by the domain code in the transaction of the change. */
export const DOMAIN_EVENT_TYPES = ['checkin_created', 'work_status_changed', 'task_status_changed', 'form_submitted'] as const;

export const EVENT_TYPES: ReadonlySet<string> = new Set([...ZONE_EVENT_TYPES, ...PIPELINE_EVENT_TYPES, ...CONNECTION_EVENT_TYPES, ...DOMAIN_EVENT_TYPES]);

/** What the text needs besides the event: the labels of the zones it names (absent: deleted). */
export interface EventNames {
  zone(id: number): string | undefined;
}

/** A duration in seconds as text: `45 s`, `12 min`, `2 h 5 min`. */
export function durationText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const min = Math.round(seconds / 60);
  if (min < 60) return `${min} min`;
  return min % 60 ? `${Math.floor(min / 60)} h ${min % 60} min` : `${min / 60} h`;
}

/** `alarm_power_cut` -> `power cut`; `alarm_sos` -> `SOS`. */
export function alarmText(type: string, extra: Record<string, unknown>): string {
  if (type === 'alarm_sos') return 'SOS';
  if (type === 'alarm_general' && typeof extra.alarm === 'string') return extra.alarm;
  return type.slice('alarm_'.length).replace(/_/g, ' ');
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

/** The human text of an event (English). */
export function eventMessage(type: string, extra: Record<string, unknown>, names: EventNames): string {
  const zone = () => names.zone(Number(extra.zone_id)) ?? `#${str(extra.zone_id)}`;
  switch (type) {
    case 'zone_enter':
      return `Entered zone ${zone()}`;
    case 'zone_exit':
      return `Left zone ${zone()}`;
    case 'speeding_start':
      return `Speeding: ${str(extra.speed)} km/h, limit ${str(extra.speed_limit)} km/h`;
    case 'speeding_end':
      return `Speeding ended after ${durationText(Number(extra.duration))}: max ${str(extra.max_speed)} km/h, limit ${str(extra.speed_limit)} km/h`;
    case 'ignition_on':
      return 'Ignition on';
    case 'ignition_off':
      return 'Ignition off';
    case 'parking_start':
      return 'Parking started';
    case 'parking_end':
      return `Parking ended after ${durationText(Number(extra.duration))}`;
    case 'connection_lost':
      return 'Connection lost';
    case 'connection_restored':
      return `Connection restored after ${durationText(Number(extra.lost_duration))}`;
    case 'checkin_created':
      return extra.comment ? `Check-in: ${str(extra.comment)}` : 'Check-in';
    case 'work_status_changed':
      return extra.old_status_label ? `Work status changed from ${str(extra.old_status_label)} to ${str(extra.new_status_label)}` : `Work status set to ${str(extra.new_status_label)}`;
    case 'task_status_changed':
      return `Task ${str(extra.task_label)}: ${str(extra.old_status)} -> ${str(extra.new_status)}`;
    case 'form_submitted':
      return `Form ${str(extra.form_label)} submitted`;
    default:
      return type.startsWith('alarm_') ? `Alarm: ${alarmText(type, extra)}` : type;
  }
}
