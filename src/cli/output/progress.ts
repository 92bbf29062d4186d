/**
 * A progress bar on stderr while a batch runs or an export downloads. Only on a terminal:
 * in a pipe or a log file the redraws would be noise, so the bar is then a no-op.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** `total` may grow (an export's size is only known once the batch's counters are read). */
  update(value: number, total: number, detail?: string): void;
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

export function createProgress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return silent;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {value}/{total} {detail}`,
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
    update(value, total, detail = '') {
      if (!started) {
        bar.start(Math.max(total, value, 1), value, { detail });
        started = true;
        process.once('SIGINT', onInterrupt);
        return;
      }
      bar.setTotal(Math.max(total, value, 1));
      bar.update(value, { detail });
    },
    stop() {
      if (!started) return;
      started = false;
      process.removeListener('SIGINT', onInterrupt);
      bar.stop();
    },
  };
}
