/**
 * A lease as the work it covers is created with it (a check started, a list created, a fill or an
 * import begun): the record every leased role takes, in a file of its own below them and the
 * leases role (leases.ts), which renews, releases and takes them over.
 */
export interface LeaseGrant {
  /** The lease keeper of the process that holds it (src/service/leases/lease-keeper.ts). */
  owner: string;
  until: Date;
}
