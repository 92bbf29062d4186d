/**
 * The one progress bar of a command, on stderr: the phases of a run (reading, creating,
 * verifying, downloading, writing) move the same bar and change its label, and passing news
 * such as "rate limited, retrying in 2 s" shows in its status instead of as lines of their
 * own. Only on a terminal: in a pipe or a log file the redraws would be noise, so the bar is
 * then a no-op.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** True while a bar is drawn (on a terminal, between the first update and stop). */
  readonly active: boolean;
  /** `total` may grow (an export's size is only known once the batch's counters are read). */
  update(label: string, value: number, total: number, detail?: string): void;
  /** Passing news (a retry), shown in the bar until the next update. */
  status(text: string): void;
  /** Erases the bar's line so a line of output can be written to the same terminal; the next update draws it again. */
  clear(): void;
  stop(): void;
}

const silent: Progress = { active: false, update() {}, status() {}, clear() {}, stop() {} };

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return silent;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{label} [{bar}] {value}/{total} {detail}',
      hideCursor: true,
      clearOnComplete: false,
      barsize: 30,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  // The bar hides the terminal cursor; an interrupted run must give it back.
  const onInterrupt = (): void => {
    bar.stop();
    process.exit(130);
  };
  return {
    get active() {
      return started;
    },
    update(label, value, total, detail = '') {
      const payload = { label: label.padEnd(11), detail };
      if (!started) {
        bar.start(Math.max(total, value, 1), value, payload);
        started = true;
        process.once('SIGINT', onInterrupt);
        return;
      }
      bar.setTotal(Math.max(total, value, 1));
      bar.update(value, payload);
    },
    status(text) {
      if (started) bar.update({ detail: text });
    },
    clear() {
      if (started) stream.write('\r\x1b[2K');
    },
    stop() {
      if (!started) return;
      started = false;
      process.removeListener('SIGINT', onInterrupt);
      bar.stop();
    },
  };
}
