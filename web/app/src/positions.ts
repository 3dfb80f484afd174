/**
 * Position reporting while the app is open (docs/field-app.md, "Background"): the browser's
 * watchPosition, each fix with accuracy, speed and heading written to the outbox; sent in batches.
 */
import { useEffect, useState } from 'react';
import { enqueue, type Position } from './outbox.ts';

/** Fixes closer than this in time are not kept (a phone may report several a second). */
const MIN_INTERVAL_MS = 1_000;

export function usePositions(onFix: () => void): { last: Position | null; error: string | null } {
  const [last, setLast] = useState<Position | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!('geolocation' in navigator)) {
      setError('This browser gives no position');
      return;
    }
    let lastKept = 0;
    const id = navigator.geolocation.watchPosition(
      (p) => {
        const c = p.coords;
        const fix: Position = { time: p.timestamp, lat: c.latitude, lng: c.longitude, accuracy: c.accuracy ?? null, speed: c.speed ?? null, heading: Number.isFinite(c.heading) ? c.heading : null, altitude: c.altitude ?? null };
        setLast(fix);
        setError(null);
        if (p.timestamp - lastKept < MIN_INTERVAL_MS) return;
        lastKept = p.timestamp;
        void enqueue({ kind: 'position', position: fix }).then(onFix);
      },
      (e) => setError(e.code === e.PERMISSION_DENIED ? 'Location is not allowed for this app' : 'No position yet'),
      { enableHighAccuracy: true, maximumAge: 0 },
    );
    return () => navigator.geolocation.clearWatch(id);
  }, [onFix]);
  return { last, error };
}
