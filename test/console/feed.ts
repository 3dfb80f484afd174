/**
 * Positions for the console's tests, sent as a tracker would: OsmAnd HTTP requests to the real
 * gateway (exact coordinates and times, so two trackers can share one spot and a trip has a known
 * shape).
 */
export interface Fix {
  lat: number;
  lng: number;
  /** Unix seconds. */
  time: number;
  /** km/h */
  speed: number;
}

export async function sendFixes(port: number, deviceId: string, fixes: Fix[]): Promise<void> {
  for (const f of fixes) {
    // OsmAnd speeds are knots.
    const url = `http://127.0.0.1:${port}/?id=${deviceId}&lat=${f.lat}&lon=${f.lng}&timestamp=${f.time}&speed=${(f.speed / 1.852).toFixed(2)}&bearing=90&altitude=120`;
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`osmand fix refused: HTTP ${res.status}`);
  }
}

/** Two trips east with a stop between them, ending `endAgo` seconds ago: one fix per 10 s moving, per 30 s parked. */
export function twoTrips(start: { lat: number; lng: number }, startTime: number): Fix[] {
  const out: Fix[] = [];
  let { lat, lng } = start;
  let time = startTime;
  // ~40 km/h: 111 m per 10 s, about 0.00173 degrees of longitude at 54.7 N.
  const drive = (steps: number) => {
    for (let i = 0; i < steps; i++) {
      out.push({ lat, lng, time, speed: 40 });
      lng += 0.00173;
      lat += i % 2 ? 0.0004 : 0;
      time += 10;
    }
  };
  const park = (steps: number) => {
    for (let i = 0; i < steps; i++) {
      out.push({ lat, lng, time, speed: 0 });
      time += 30;
    }
  };
  drive(60);
  park(24);
  drive(60);
  park(10);
  return out;
}
