export { openJetStreamBus, JetStreamBusOptions, type EngineWrapping } from './jetstream-bus.js';
export { startEmbeddedNats, type EmbeddedNats, type EmbeddedNatsOptions } from './embedded.js';
export { restoreJetStream } from './jetstream-bus.js';
