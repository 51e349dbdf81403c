export {
  acquireLease,
  decodeLease,
  encodeLease,
  leaseLive,
  readLease,
  releaseLease,
  renewLease,
  type AcquireResult,
  type Held,
  type LeaseIdentity,
} from './lease.js';
export { fenceOf, LEASE_EPOCH_HEADER, leaseHeaders, LeaseFencedError, noFence, type Fence } from './fence.js';
