/** Outbound clients for third parties, one small file per vendor (DESIGN.md "Actors"). */
export { codehostBPass } from './codehost-b.pass.js';
export { localPass } from './local.pass.js';
export type { VendorPass } from './pass-context.js';
export { siteAccount, whoAmIPath } from './site-account.js';
export { sitePass } from './site.pass.js';
export { trackerBPass } from './tracker-b.pass.js';
export { VendorError } from './vendor-http.js';
export { readTrackerBSkillPages, readWikiSkillPages, type VendorSkillPage } from './skills.read.js';
