// The timeline: a scrubber over the run's events, replay at a steady pace, and "live" (follow the tail).

/**
 * Wires the timeline controls. `onMove(position)` is called whenever the shown position changes
 * (0 … number of events). Returns `{ setLength(n), position(), isLive(), reset() }`.
 */
export function createTimeline({ scrubber, position, play, replay, live }, onMove, stepMs = 220) {
  let length = 0;
  let at = 0;
  let following = true;
  let timer = null;

  const show = () => {
    scrubber.max = String(length);
    scrubber.value = String(at);
    position.textContent = `${at} / ${length}`;
    live.classList.toggle('on', following);
    play.textContent = timer ? 'Pause' : 'Play';
    document.body.dataset.timeline = following ? 'live' : timer ? 'playing' : 'paused';
  };
  const move = (to) => {
    at = Math.max(0, Math.min(length, to));
    show();
    onMove(at);
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  const start = () => {
    stop();
    following = false;
    if (at >= length) at = 0;
    timer = setInterval(() => {
      if (at >= length) {
        stop();
        show();
        return;
      }
      move(at + 1);
    }, stepMs);
    show();
  };

  scrubber.addEventListener('input', () => {
    stop();
    following = false;
    move(Number(scrubber.value));
  });
  play.addEventListener('click', () => (timer ? (stop(), show()) : start()));
  replay.addEventListener('click', () => {
    move(0);
    start();
  });
  live.addEventListener('click', () => {
    stop();
    following = true;
    move(length);
  });

  return {
    /** New events arrived: a live timeline follows them, a paused one stays where it is. */
    setLength(n) {
      length = n;
      if (following) move(length);
      else show();
    },
    /** Shows a specific position (pauses following). */
    jump(to) {
      stop();
      following = false;
      move(to);
    },
    position: () => at,
    isLive: () => following,
    reset() {
      stop();
      following = true;
      length = 0;
      move(0);
    },
  };
}
