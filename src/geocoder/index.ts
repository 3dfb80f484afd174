/**
 * The geocoder service (services.geocoder): picks the provider configured for the asked geocoder
 * type, caches answers (memory LRU for all providers, SQLite for the remote ones) and falls back to
 * the offline provider when a remote one fails. docs/geocoder.md describes the behaviour.
 */
import type { GeocoderConfig } from './types.ts';
import type { GeoCacheStore } from '../store/geocache.ts';
import { Lru } from './lru.ts';
import { NominatimProvider } from './nominatim.ts';
import { OfflineProvider } from './offline.ts';
import { PhotonProvider } from './photon.ts';
import type { Provider } from './provider.ts';
import { languageOf, parseCoordinates } from './text.ts';
import { GEOCODER_TYPES, type GeocodeOptions, type Geocoder, type GeocoderType, type GeoResult } from './types.ts';

/** Results of one search. */
export const SEARCH_LIMIT = 10;
/** After a failure, `ui` requests skip the failing provider for this long. */
export const RETRY_AFTER_MS = 30_000;
const DAY_MS = 86_400_000;

export interface GeocoderDeps {
  cache?: GeoCacheStore;
  now?: () => number;
  /** Told about provider failures (the answer then comes from the offline provider). */
  warn?: (message: string) => void;
  /** Shares the loaded offline data (tests, several services in one process). */
  offline?: OfflineProvider;
}

type Answer = GeoResult | null | GeoResult[];

export class GeocoderService implements Geocoder {
  readonly offline: OfflineProvider;
  private readonly providers = new Map<string, Provider>();
  private readonly memory: Lru<string, Answer>;
  private readonly inFlight = new Map<string, Promise<Answer>>();
  private readonly downUntil = new Map<string, number>();
  private readonly now: () => number;
  private puts = 0;

  constructor(private readonly config: Readonly<GeocoderConfig>, private readonly deps: GeocoderDeps = {}) {
    this.offline = deps.offline ?? sharedOffline();
    this.now = deps.now ?? Date.now;
    this.memory = new Lru(config.cacheSize);
    this.providers.set('offline', this.offline);
    if (config.nominatimUrl) this.providers.set('nominatim', new NominatimProvider(config.nominatimUrl, config.timeoutMs));
    if (config.photonUrl) this.providers.set('photon', new PhotonProvider(config.photonUrl, config.timeoutMs));
    deps.cache?.prune(this.now() - config.cacheDays * DAY_MS);
  }

  /** The provider that answers for a geocoder type (geocoder_type_1's when none is asked). */
  providerFor(opts: GeocodeOptions = {}): Provider {
    return this.providers.get(this.config.types[opts.type ?? 'geocoder_type_1']) ?? this.offline;
  }

  async reverse(lat: number, lng: number, opts: GeocodeOptions = {}): Promise<GeoResult | null> {
    if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) return null;
    const lang = languageOf(opts.lang);
    const r = (await this.answer(this.providerFor(opts), reverseRequest(lat, lng), lang, opts, (p) => p.reverse(lat, lng, lang))) as GeoResult | null;
    return r && shape(r, opts.withDetails);
  }

  /**
   * `reverse` answered by the offline provider, synchronously, through the same memory cache: what
   * a report worker asks for a geocoder type answered offline (73,000 addresses for a month's trips;
   * a promise and a cache round per ask cost as much as the look-up).
   */
  reverseOffline(lat: number, lng: number, opts: Pick<GeocodeOptions, 'lang' | 'withDetails'> = {}): GeoResult | null {
    if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) return null;
    const lang = languageOf(opts.lang);
    if (this.config.cacheSize <= 0) {
      const r = this.offline.reverseSync(lat, lng, lang);
      return r && shape(r, opts.withDetails);
    }
    const key = `${this.offline.name}|${reverseRequest(lat, lng)}|${lang}`;
    let r = this.memory.get(key) as GeoResult | null | undefined;
    if (r === undefined) {
      r = this.offline.reverseSync(lat, lng, lang);
      this.memory.set(key, r);
    }
    return r && shape(r, opts.withDetails);
  }

  async search(q: string, opts: GeocodeOptions = {}): Promise<GeoResult[]> {
    const text = q.trim();
    if (!text) return [];
    const point = parseCoordinates(text);
    if (point) {
      if (!point.valid) return [];
      const r = await this.reverse(point.lat, point.lng, opts);
      return [{ lat: point.lat, lng: point.lng, address: r?.address || `${point.lat}, ${point.lng}`, ...(opts.withDetails ? { details: r?.details ?? {} } : {}) }];
    }
    const lang = languageOf(opts.lang);
    const b = opts.bounds;
    const request = `s:${text.toLowerCase().replace(/\s+/g, ' ')}|${b ? [b.nw.lat, b.nw.lng, b.se.lat, b.se.lng].map((x) => x.toFixed(2)).join(',') : ''}`;
    const list = (await this.answer(this.providerFor(opts), request, lang, opts, (p) => p.search(text, { lang, bounds: b, limit: SEARCH_LIMIT }))) as GeoResult[];
    return list.map((r) => shape(r, opts.withDetails));
  }

  /** Cache, then the provider (one request in flight per key), then the offline fallback. */
  private async answer(provider: Provider, request: string, lang: string, opts: GeocodeOptions, ask: (p: Provider) => Promise<Answer>): Promise<Answer> {
    const key = `${provider.name}|${request}|${lang}`;
    const hit = this.memory.get(key);
    if (hit !== undefined) return hit;
    if (provider.remote && this.deps.cache && this.config.cacheDays > 0) {
      const stored = this.deps.cache.get(provider.name, request, lang, this.now() - this.config.cacheDays * DAY_MS);
      if (stored !== undefined) {
        const v = JSON.parse(stored) as Answer;
        this.memory.set(key, v);
        return v;
      }
    }
    if (provider.remote && opts.goal !== 'ui_user_action' && (this.downUntil.get(provider.name) ?? 0) > this.now()) return this.answer(this.offline, request, lang, opts, ask);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const run = (async () => {
      try {
        const v = await ask(provider);
        this.memory.set(key, v);
        if (provider.remote) this.store(provider.name, request, lang, v);
        return v;
      } catch (e) {
        if (!provider.remote) throw e;
        this.downUntil.set(provider.name, this.now() + RETRY_AFTER_MS);
        this.deps.warn?.(`geocoder ${provider.name} failed, answering offline: ${(e as Error).message}`);
        return this.answer(this.offline, request, lang, opts, ask);
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, run);
    return run;
  }

  private store(provider: string, request: string, lang: string, v: Answer): void {
    const cache = this.deps.cache;
    if (!cache || this.config.cacheDays <= 0) return;
    const now = this.now();
    cache.put(provider, request, lang, JSON.stringify(v), now);
    if (++this.puts % 1000 === 0) cache.prune(now - this.config.cacheDays * DAY_MS);
  }
}

/** The cache's request of a reverse look-up: ~11 m, nearby points share an entry (docs/geocoder.md). */
const reverseRequest = (lat: number, lng: number) => `r:${lat.toFixed(4)},${lng.toFixed(4)}`;

/** Details only when asked for (the cache keeps them always). */
function shape(r: GeoResult, withDetails?: boolean): GeoResult {
  const { details, ...rest } = r;
  return withDetails ? { ...rest, details: details ?? {} } : rest;
}

let offlineSingleton: OfflineProvider | undefined;
/** The offline data is large and read-only: one copy per process. */
function sharedOffline(): OfflineProvider {
  return (offlineSingleton ??= new OfflineProvider());
}

export function createGeocoder(config: Readonly<GeocoderConfig>, deps: GeocoderDeps = {}): GeocoderService {
  return new GeocoderService(config, deps);
}

/** The geocoder types this service answers from the offline data alone (no remote provider configured for them). */
export function offlineTypes(geocoder: GeocoderService): GeocoderType[] {
  return GEOCODER_TYPES.filter((type) => !geocoder.providerFor({ type }).remote);
}

/**
 * A service that answers every type from the offline data, with a memory cache of `cacheSize`
 * answers: what a report worker looks addresses up with when the report's type is offline
 * (docs/reports.md, "The queue"). The same rules as the API's service for those types.
 */
export function offlineGeocoder(cacheSize: number): GeocoderService {
  const types = Object.fromEntries(GEOCODER_TYPES.map((t) => [t, 'offline'])) as GeocoderConfig['types'];
  return new GeocoderService({ nominatimUrl: null, photonUrl: null, types, timeoutMs: 0, cacheSize, cacheDays: 0 });
}
