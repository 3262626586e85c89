/**
 * kubectl-style human durations (`5s`, `12m`, `3h4m`, `2d`, `400d`, `3y45d`), as Kubernetes'
 * `duration.HumanDuration` prints the AGE of objects. The precision drops as the duration grows: exact
 * seconds below two minutes, minutes (with seconds below ten minutes) up to three hours, hours (with
 * minutes below eight hours) up to two days, days (with hours below eight days) up to two years, then
 * years (with days below eight years).
 *
 * Edge cases: a duration up to one second in the future (clock skew between replicas) prints `0s`; more than
 * that prints `<invalid>`. Fractions are truncated, never rounded.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

/** `ms`: the elapsed time in milliseconds (negative when the timestamp is in the future). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(ms / DAY);
  if (hours < 8 * 24) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (ms < 2 * YEAR) return `${days}d`;
  const years = Math.trunc(ms / YEAR);
  if (ms < 8 * YEAR) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}
