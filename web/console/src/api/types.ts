/** The shapes of the API answers the console reads (docs/api.md and the spec name every field). */
export interface Tracker {
  id: number;
  label: string;
  clone: boolean;
  source: { id: number; device_id: string; model: string; blocked: boolean; phone: string | null; status_listing_id?: number | null };
}

export type ConnectionStatus = 'active' | 'idle' | 'offline' | 'signal_lost' | 'just_registered' | 'just_replaced';

/** A tracker's live state as get_states and the socket's state_batch carry it (compact form). */
export interface SourceState {
  source_id: number;
  gps: { updated: string | null; signal_level?: number | null; location: { lat: number; lng: number } | null; heading: number; speed: number; alt: number };
  connection_status: ConnectionStatus;
  movement_status: 'moving' | 'stopped' | 'parked';
  last_update: string | null;
}

export interface TrackPoint {
  lat: number;
  lng: number;
  alt: number;
  satellites: number;
  get_time: string;
  heading: number;
  speed: number;
  address: string;
}

export interface Trip {
  id: number;
  type: 'regular' | 'single_report' | 'cluster' | 'merged';
  start_date: string;
  end_date?: string;
  start_address: string;
  end_address?: string;
  length?: number;
  max_speed?: number;
  avg_speed?: number;
  points?: number;
}

export interface Sensor {
  label: string;
  name: string;
  type: string;
  value: number | string | boolean | null;
  units: string;
}

export interface ChatMessage {
  id: number;
  submit_time: string;
  text: string;
  type: 'INCOMING' | 'OUTGOING';
  status: string;
}

export type TaskStatus = 'unassigned' | 'assigned' | 'arrived' | 'done' | 'failed' | 'delayed' | 'faulty';

export interface Task {
  id: number;
  type: 'task' | 'checkpoint';
  label: string;
  description: string;
  status: TaskStatus;
  tracker_id: number | null;
  from: string;
  to: string;
  location: { lat: number; lng: number; address: string; radius: number };
  arrival_date: string | null;
}

export interface LatLng {
  lat: number;
  lng: number;
}

/** zone/list: circles carry radius and center, sausages radius; points come from zone/point/list. */
export interface Zone {
  id: number;
  type: 'circle' | 'polygon' | 'sausage';
  label: string;
  address: string;
  color: string;
  tags: number[];
  radius?: number;
  center?: LatLng;
  bounds: { nw: LatLng; se: LatLng } | null;
}

export interface Place {
  id: number;
  label: string;
  description: string;
  location: LatLng & { address: string; radius: number };
  tags: number[];
  external_id: string | null;
}

/** One row's problem in an upload's answer (`line` counts the header as 1). */
export interface RowError {
  line: number;
  parameter: string;
  error: string;
}

/** report/tracker/list: a generated report or one in progress (docs/reports.md, "The list item"). */
export interface ReportItem {
  id: number;
  created: string;
  title: string;
  type: string;
  percent: number;
  from: string;
  to: string;
  parameters: { trackers: number[]; plugins: { plugin_id: number }[] };
  state: 'queued' | 'in_progress' | 'ready' | 'failed';
  error?: string;
}

/** A cell of a retrieved report: `v` as shown, `raw` the number behind it (null for text). */
export interface ReportCell {
  v: string;
  raw: number | null;
  location?: LatLng;
}

export type ReportSection =
  | {
      type: 'table';
      header: string;
      columns: { field: string; title: string; align: 'left' | 'right' }[];
      data: { header: string; rows: Record<string, ReportCell>[]; total: (Record<string, ReportCell | string> & { text: string }) | null }[];
    }
  | { type: 'map_table'; header: string; rows: { name: string; v: string }[]; track?: [number, number][] };

/** report/tracker/retrieve: sheets (a tracker's, or the summary) of sections. */
export interface ReportObject {
  id: number;
  title: string;
  from: string;
  to: string;
  sheets: { header: string; entity_ids: number[]; sections: ReportSection[] }[];
}

/** employee/list (docs/employees.md): the members the console shows. */
export interface Employee {
  id: number;
  tracker_id: number | null;
  first_name: string;
  middle_name: string;
  last_name: string;
}

/** A file as check-ins carry it (docs/files.md): `download_url` needs the session (`?hash=`). */
export interface StoredFile {
  id: number;
  type: 'image' | 'file';
  name: string;
  size: number;
  mime_type: string;
  state: string;
  download_url: string | null;
}

/** checkin/list, checkin/read (docs/checkins.md). */
export interface Checkin {
  id: number;
  marker_time: string;
  tracker_id: number;
  employee_id?: number;
  location: LatLng & { address: string; precision: number | null };
  comment?: string;
  files: StoredFile[];
  form_id: number | null;
  form_label: string | null;
}

/** Working statuses (docs/statuses.md): a listing holds its statuses in `entries` order. */
export interface StatusListing {
  id: number;
  label: string;
  employee_controlled: boolean;
  supervisor_controlled: boolean;
  entries: number[];
}

export interface WorkStatus {
  id: number;
  label: string;
  /** Six hex digits, no `#`. */
  color: string;
}

export interface StatusChange {
  id: number;
  old_status_id: number | null;
  new_status_id: number | null;
  changed: string;
  origin: 'supervisor' | 'employee';
}

/** status/tracker/list: per tracker id. */
export interface TrackerStatus {
  current_status: WorkStatus | null;
  last_change: StatusChange | null;
}
