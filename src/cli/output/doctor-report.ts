/**
 * `presend doctor`'s text: one table row per check (✓ fine, ! unknown or worth a look, ✗
 * wrong), then, for every row that is not ✓, what it means and what to do, then the verdict
 * with its exit code. --json prints the report itself (src/service/prober-health/doctor.ts).
 */
import { STATUS_MARK } from '../../service/prober-health/health-check.js';
import type { DoctorReport } from '../../service/prober-health/doctor.js';
import { renderTable } from './table.js';

const HEALTH_LINE: Record<DoctorReport['health'], string> = {
  healthy: 'HEALTHY: probes get out and receivers have no reason to refuse them.',
  degraded: 'DEGRADED: probes get out, but some receivers will refuse or distrust them (or something could not be checked).',
  broken: 'BROKEN: probes cannot get answers; live checks would end TRANSIENT or UNKNOWN.',
};

export function renderDoctorReport(report: DoctorReport): string {
  const lines: string[] = [`Presend doctor: the prober's health (${report.checkedAt})`, ''];
  for (const route of report.routes) {
    const egress = route.egressIp ? `egress ${route.egressIp} (${route.egressSource === 'setting' ? 'as configured' : route.egressSource === 'ehlo_reply' ? "named by the canary's EHLO reply" : "the connection's own address"})` : 'egress unknown';
    lines.push(`route ${route.name}: ${route.proxy ? `through ${route.proxy}, ` : ''}HELO ${route.heloName}, ${egress}`);
  }
  if (report.canary) lines.push(`canary: ${report.canary.host} (${report.canary.ip}:${report.canary.port})`);
  lines.push('');
  const rows = report.checks.map((c) => [STATUS_MARK[c.status], c.id, c.route ?? '-', c.summary]);
  lines.push(renderTable(['', 'check', 'route', 'found'], rows));
  const notOk = report.checks.filter((c) => c.status !== 'ok');
  for (const check of notOk) {
    lines.push(`${STATUS_MARK[check.status]} ${check.id}${check.route ? ` (route ${check.route})` : ''}`);
    lines.push(`    means: ${check.meaning}`);
    if (check.action) lines.push(`    do:    ${check.action}`);
    lines.push('');
  }
  const failures = notOk.filter((c) => c.status === 'fail').length;
  const warnings = notOk.length - failures;
  lines.push(`${HEALTH_LINE[report.health]} (${failures} failed, ${warnings} to look at; exit ${report.exitCode})`);
  return lines.join('\n') + '\n';
}
