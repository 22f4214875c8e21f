import type { Command } from 'commander';
import type { DoctorReport, RetentionPlan, RetentionStep } from '../../src/index.js';
import { bold, dim, printJson, println } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

export function registerMaintenance(program: Command, globals: Globals): void {
  program
    .command('doctor')
    .description(
      "check the database: integrity, indexes, counters, deliveries, and the assistant's work left under way",
    )
    .option('--repair', 'back up the database, then rebuild what can be rebuilt')
    .option('--backup <file>', 'where --repair saves the database first (default: beside it)')
    .option(
      '--config <file>',
      'the config file whose retention policy it reports on (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .action((opts: { repair?: boolean; backup?: string; config?: string }) =>
      withBrain(globals(), async ({ brain, config, json }) => {
        const report = await brain.upkeep.doctor({
          repair: opts.repair ?? false,
          backup_path: opts.backup,
        });
        // Problems left are a failed check, not a failed command: the report is the answer.
        if (!report.ok) process.exitCode = 1;
        // The assistant's run_command sandbox: reported here too, since doctor is where one looks.
        const [{ sandboxStatus }, { assistantEnv }] = await Promise.all([
          import('../../agent/index.js'),
          import('../assistant-config.js'),
        ]);
        const sandbox = await sandboxStatus(assistantEnv().PATH ?? '');
        // Which Litestream would replicate, and how far the configured replica is behind.
        const { replicationReport, describeReplication } = await import('../replication-status.js');
        const replication = await replicationReport(
          brain.path,
          brain.upkeep.replication(),
          config.replicaUrl,
        );
        // What the retention policy of the config file does next.
        const { assistantConfigExists, loadAssistantConfigFile } =
          await import('../assistant-config.js');
        const policy = assistantConfigExists(opts.config)
          ? (await loadAssistantConfigFile(opts.config)).retention
          : undefined;
        const retention = policy ? await brain.upkeep.retentionPlan(policy) : null;
        if (json) return printJson({ ...report, sandbox, replication, retention });
        printReport(report, opts.repair ?? false, [
          `sandbox: ${sandbox.detail}`,
          ...describeReplication(replication),
          ...describeRetention(retention),
        ]);
      }),
    );

  program
    .command('backup')
    .description(
      'copy the database to a new file while others keep using it (SQLite online backup)',
    )
    .argument('<file>', 'the backup file to create (must not exist)')
    .action((file: string) =>
      withBrain(globals(), async ({ brain, json }) => {
        const result = await brain.upkeep.backup(file);
        if (json) return printJson(result);
        println(
          `backed up ${brain.path} to ${result.path} (${(result.bytes / 1_048_576).toFixed(1)} MiB, ${result.ms} ms)`,
        );
        if (result.files > 0)
          println(
            `  with ${result.files} attachment file${result.files === 1 ? '' : 's'} in ${result.path}-attachments/`,
          );
      }),
    );
}

/** What the retention policy does now and in the next seven days, in a few lines. */
export function describeRetention(plan: RetentionPlan | null): string[] {
  if (!plan) return ['retention: no policy (threads are never archived by age)'];
  const ids = (steps: RetentionStep[]) =>
    steps
      .slice(0, 5)
      .map((s) => s.thread_id)
      .join(', ') + (steps.length > 5 ? ', …' : '');
  const lines: string[] = [];
  for (const action of ['archive', 'close'] as const) {
    const due = plan.due.filter((s) => s.action === action);
    const verb = action === 'archive' ? 'archives' : 'closes';
    if (due.length > 0)
      lines.push(`retention: ${verb} ${due.length} idle thread(s) now: ${ids(due)}`);
  }
  const next = plan.upcoming[0];
  if (next)
    lines.push(
      `retention: next, ${next.action === 'archive' ? 'archives' : 'closes'} ${next.thread_id} at ${next.due_at}` +
        ` (${plan.upcoming.length} step(s) in the next 7 days: ${ids(plan.upcoming)})`,
    );
  if (lines.length === 0) lines.push('retention: nothing to archive or close in the next 7 days');
  return lines;
}

/** The checks, then `notes` (what else the doctor looked at), then the verdict. */
export function printReport(report: DoctorReport, repairing: boolean, notes: string[] = []): void {
  if (report.backup) println(dim(`backup first: ${report.backup.path}`));
  for (const check of report.checks) {
    const mark = check.ok ? '✓' : '✗';
    const fixed = check.problems.length > 0 && check.ok ? ' (repaired)' : '';
    println(`${mark} ${bold(check.name)}${fixed}  ${dim(check.description)}`);
    for (const p of check.problems) println(`    ${p}`);
    for (const r of check.repairs) println(dim(`    repair: ${r}`));
    if (repairing && !check.ok) for (const p of check.remaining) println(`    still: ${p}`);
  }
  for (const line of notes) println(line);
  if (report.ok) println(report.backup ? 'repaired; every check passes' : 'every check passes');
  else if (repairing)
    println('some problems could not be repaired: restore the backup, or ask for help');
  else println('problems found: run `brain doctor --repair` (it takes a backup first)');
}
