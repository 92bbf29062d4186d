/** The dashboard's roles over one query interface: lines of `openRoles` once step 2 of #11 has it (src/store/backend.ts, "Adding a role"). */
import type { Db } from '../sql.js';
import type { AccountViewsRole, KeyManagementRole, ListFilesRole, LoginThrottleRole, OwnerSessionsRole, UsersRole } from '../backend.js';
import { accountViewsRole } from './account-views.js';
import { keyManagementRole } from './key-management.js';
import { listFilesRole } from './list-files.js';
import { loginThrottleRole } from './login-throttle.js';
import { ownerSessionsRole } from './owner-sessions.js';
import { usersRole } from './users.js';

export interface OwnerRoles {
  users: UsersRole;
  ownerSessions: OwnerSessionsRole;
  loginThrottle: LoginThrottleRole;
  keyManagement: KeyManagementRole;
  listFiles: ListFilesRole;
  accountViews: AccountViewsRole;
}

export function openOwnerRoles(db: Db): OwnerRoles {
  return {
    users: usersRole(db),
    ownerSessions: ownerSessionsRole(db),
    loginThrottle: loginThrottleRole(db),
    keyManagement: keyManagementRole(db),
    listFiles: listFilesRole(db),
    accountViews: accountViewsRole(db),
  };
}
