/**
 * The words of the reports (titles, column and summary headers) in the locales we ship: English and
 * Russian; any other locale gets English words with its own number and date formats (format.ts).
 */
const EN = {
  'title.4': 'Trips',
  'title.6': 'Stops',
  'title.7': 'Engine hours',
  'title.8': 'Geofence visits',
  'title.91': 'Point report',
  summary: 'Summary',
  total: 'Total',
  n: 'No.',
  tracker: 'Tracker',
  start: 'Start',
  end: 'End',
  start_address: 'Start address',
  end_address: 'End address',
  time: 'Time',
  location: 'Location',
  distance: 'Distance',
  duration: 'Duration',
  max_speed: 'Max speed',
  avg_speed: 'Average speed',
  speed: 'Speed',
  altitude: 'Altitude, m',
  satellites: 'Satellites',
  trips: 'Trips',
  stops: 'Stops',
  points: 'Points',
  zone: 'Geofence',
  enter: 'Entered',
  exit: 'Left',
  visits: 'Visits',
  engine_on: 'Engine on',
  engine_off: 'Engine off',
  moving: 'Moving',
  idle: 'Idling',
  intervals: 'Engine runs',
  count: 'Count',
  total_distance: 'Total distance',
  total_duration: 'Total time',
  driving_time: 'Driving time',
} as const;

export type Word = keyof typeof EN;

const RU: Record<Word, string> = {
  'title.4': 'Поездки',
  'title.6': 'Стоянки',
  'title.7': 'Моточасы',
  'title.8': 'Посещение геозон',
  'title.91': 'Отчёт по точкам',
  summary: 'Сводка',
  total: 'Итого',
  n: '№',
  tracker: 'Трекер',
  start: 'Начало',
  end: 'Конец',
  start_address: 'Адрес начала',
  end_address: 'Адрес конца',
  time: 'Время',
  location: 'Место',
  distance: 'Пробег',
  duration: 'Длительность',
  max_speed: 'Макс. скорость',
  avg_speed: 'Средняя скорость',
  speed: 'Скорость',
  altitude: 'Высота, м',
  satellites: 'Спутники',
  trips: 'Поездки',
  stops: 'Стоянки',
  points: 'Точки',
  zone: 'Геозона',
  enter: 'Въезд',
  exit: 'Выезд',
  visits: 'Посещения',
  engine_on: 'Двигатель включён',
  engine_off: 'Двигатель выключен',
  moving: 'В движении',
  idle: 'Холостой ход',
  intervals: 'Работа двигателя',
  count: 'Количество',
  total_distance: 'Общий пробег',
  total_duration: 'Общее время',
  driving_time: 'Время в движении',
};

const TABLES: Record<string, Record<Word, string>> = { en: EN, ru: RU };

/** The word in the locale's language (`ru`, `ru-RU`, `ru_RU`), else English. */
export function word(locale: string, key: Word): string {
  const lang = locale.toLowerCase().split(/[-_]/)[0];
  return (TABLES[lang] ?? EN)[key];
}
