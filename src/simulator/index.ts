/** The device simulator: virtual trackers over real sockets, for demos, benchmarks and crash tests. */
export { runSimulation, deviceIdsFor, SimulationOptionError, type SimulationOptions, type SimulationStats } from './run.ts';
export { DEVICE_PROTOCOLS } from './devices/index.ts';
export { Vehicle } from './vehicle.ts';
export type { SimFix, DeviceProtocol, Device, Packet, Reply, ReplyReader } from './types.ts';
