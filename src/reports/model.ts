/**
 * The report object of `report/tracker/retrieve` (spec "Generated tracker report"): sheets of sections
 * of cells. This is the contract between the plugins that build reports (src/reports/plugins/), the
 * queue that stores them, and the renderers that turn them into files (src/reports/render/). Pure
 * data: it crosses worker threads and is stored as JSON. Documented in docs/reports.md.
 */

/** How a cell's `raw` is to be read (renderers use it: numbers stay numbers, times become dates). */
export type CellType =
  | 'text' // raw is null; v is the text
  | 'number' // raw: plain number (counts, ids)
  | 'datetime' // raw: epoch seconds UTC; v formatted in the report's time zone
  | 'date' // raw: epoch seconds UTC of the day's start in the report's time zone
  | 'duration' // raw: seconds
  | 'distance' // raw: metres; v in the user's measurement system
  | 'speed' // raw: km/h; v in the user's measurement system
  | 'volume' // raw: litres; v in the user's measurement system
  | 'percent' // raw: 0..100
  | 'location'; // raw: null; v the address or "lat, lng"; `location` set

export interface CellLocation {
  lat: number;
  lng: number;
  address?: string;
}

/** A table cell: displayed text `v`, the raw number `raw`, its `type`, and for places `location`. */
export interface Cell {
  v: string;
  raw: number | null;
  type: CellType;
  location?: CellLocation;
}

export interface Column {
  /** Key of the cell in each row's `data`. */
  field: string;
  /** Column title in the report's locale. */
  title: string;
  /** Relative width (renderers share the page width by weight). */
  weight: number;
}

export interface Row {
  /** `data` rows list items; `total` rows sum up the table (rendered bold, last). */
  type: 'data' | 'total';
  data: Record<string, Cell>;
}

export interface TableSection {
  type: 'table';
  header: string;
  columns: Column[];
  rows: Row[];
}

/** A table whose rows are places on a map, with the track of the period drawn under them. */
export interface MapTableSection {
  type: 'map_table';
  header: string;
  columns: Column[];
  rows: Row[];
  /** The track to draw: [lat, lng] pairs, already simplified to at most a few thousand points. */
  track: Array<[number, number]>;
}

/** Key/value lines (summaries: "Total distance: 412 km"). */
export interface TextSection {
  type: 'text';
  header: string;
  data: Array<{ k: string; v: Cell }>;
}

export type Section = TableSection | MapTableSection | TextSection;

export interface Sheet {
  /** Sheet title: the tracker's label (or "Summary"). */
  header: string;
  /** Trackers (or employees) this sheet is about; empty for a summary sheet. */
  entity_ids: number[];
  sections: Section[];
}

export interface TimeFilter {
  from: string; // "HH:mm" or "HH:mm:ss"
  to: string;
  weekdays: number[]; // 1 = Monday .. 7 = Sunday
}

export type MeasurementSystem = 'metric' | 'imperial' | 'us';

export interface LocaleInfo {
  locale: string;
  time_zone: string;
  measurement_system: MeasurementSystem;
}

/** The body of report/tracker/retrieve (`report` member of the answer). */
export interface ReportBody {
  id: number;
  title: string;
  /** `yyyy-MM-dd HH:mm:ss` in the report's time zone, as every time of the API. */
  created: string;
  from: string;
  to: string;
  time_filter: TimeFilter | null;
  locale_info: LocaleInfo;
  sheets: Sheet[];
}
