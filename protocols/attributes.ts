/**
 * The attribute vocabulary shared by all decoders. Keys are the names most tracker software
 * (and our captures) use, so a value means the same thing whichever protocol produced it.
 * Units: volts for power/battery, percent for batteryLevel, ms for hours, km for odometer-like
 * values given as `odometer` (metres), degrees Celsius for temperatures.
 * Protocol-specific raw IO elements that have no common name are kept as `io<id>`.
 * `docs/sensors.md` maps these keys to the API's sensor inputs, states and counters.
 */
export const Attr = {
  event: 'event',
  alarm: 'alarm',
  status: 'status',
  result: 'result', // text reply to a command
  index: 'index',
  serial: 'serial',
  ignition: 'ignition',
  motion: 'motion',
  charge: 'charge',
  blocked: 'blocked',
  armed: 'armed',
  door: 'door',
  input: 'input', // bit mask of digital inputs
  output: 'output', // bit mask of digital outputs
  power: 'power', // external power, volts
  battery: 'battery', // internal battery, volts
  batteryLevel: 'batteryLevel', // percent
  rssi: 'rssi',
  odometer: 'odometer', // metres, as reported by the device
  totalDistance: 'totalDistance', // metres
  distance: 'distance',
  hours: 'hours', // engine hours, milliseconds
  fuel: 'fuel',
  fuelLevel: 'fuelLevel',
  fuelUsed: 'fuelUsed',
  fuelConsumption: 'fuelConsumption',
  rpm: 'rpm',
  obdSpeed: 'obdSpeed',
  coolantTemp: 'coolantTemp',
  engineLoad: 'engineLoad',
  throttle: 'throttle',
  deviceTemp: 'deviceTemp',
  driverUniqueId: 'driverUniqueId',
  iccid: 'iccid',
  vin: 'vin',
  dtcs: 'dtcs',
  operator: 'operator',
  steps: 'steps',
  archive: 'archive',
} as const;

/** Indexed attribute families: `in1`, `out2`, `adc3`, `temp1`, `fuel1`, `count1`, `io239`... */
export const indexed = {
  in: (n: number) => `in${n}`,
  out: (n: number) => `out${n}`,
  adc: (n: number) => `adc${n}`,
  temp: (n: number) => `temp${n}`,
  fuel: (n: number) => `fuel${n}`,
  count: (n: number) => `count${n}`,
  io: (n: number) => `io${n}`,
} as const;

/** Alarm values (the `alarm` attribute). */
export const Alarm = {
  general: 'general',
  sos: 'sos',
  vibration: 'vibration',
  movement: 'movement',
  overspeed: 'overspeed',
  fallDown: 'fallDown',
  lowPower: 'lowPower',
  lowBattery: 'lowBattery',
  fault: 'fault',
  powerOff: 'powerOff',
  powerOn: 'powerOn',
  door: 'door',
  lock: 'lock',
  unlock: 'unlock',
  geofence: 'geofence',
  geofenceEnter: 'geofenceEnter',
  geofenceExit: 'geofenceExit',
  gpsAntennaCut: 'gpsAntennaCut',
  accident: 'accident',
  tow: 'tow',
  idle: 'idle',
  highRpm: 'highRpm',
  hardAcceleration: 'hardAcceleration',
  hardBraking: 'hardBraking',
  hardCornering: 'hardCornering',
  laneChange: 'laneChange',
  fatigueDriving: 'fatigueDriving',
  powerCut: 'powerCut',
  powerRestored: 'powerRestored',
  jamming: 'jamming',
  temperature: 'temperature',
  parking: 'parking',
  bonnet: 'bonnet',
  footBrake: 'footBrake',
  fuelLeak: 'fuelLeak',
  tampering: 'tampering',
  removing: 'removing',
} as const;
