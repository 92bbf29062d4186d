/** Reading a doctor report in tests. */
import assert from 'node:assert/strict';
import type { HealthCheck } from '../../src/service/prober-health/health-check.js';
import type { DoctorReport } from '../../src/service/prober-health/doctor.js';

/** The check with this id; fails the test, naming the ids there are, when there is none. */
export function checkOf(report: DoctorReport, id: string): HealthCheck {
  const found = report.checks.find((c) => c.id === id);
  assert.ok(found, `no check ${id} in ${report.checks.map((c) => c.id).join(', ')}`);
  return found;
}
