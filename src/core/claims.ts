// The lease primitive lives in db/leases.ts; the purchase pipeline still imports it from here until the merge.
export { type Claims, createClaims, releaseOrders } from "../db/leases.js";
