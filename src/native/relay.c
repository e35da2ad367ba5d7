/*
 * agentwrap's passthrough relay: one native thread that copies the agent's PTY output to the
 * user's terminal and the user's keystrokes to the PTY, the way script(1) does, without ever
 * waiting for JavaScript. The JS side (src/adapters/relay.ts) receives a copy of both streams
 * afterwards, in batches, for the mirror, the mode tracker and the recorder.
 *
 * Why a thread and not the event loop: in Node every output chunk and every keystroke costs an
 * event-loop wake-up, and while the main thread parses the mirror or evaluates packs nothing
 * is read from the PTY, so the agent and the user's terminal slowed down to agentwrap's pace.
 * Here passthrough depends only on the kernel.
 *
 * Contract:
 * - Output is written to the terminal first, then appended to the output tap; a keystroke is
 *   written to the PTY first, then appended to the input tap. Never the passthrough but only
 *   the taps give way when JS falls behind: without a recording the output tap keeps the
 *   newest tap_window bytes and salvages what it drops (OSC sequences, a bell, screen
 *   switches: see salvage_push), handed over first after a CAN; with one (lossless) the
 *   thread waits for JS to drain past tap_max, as a slow terminal would make it wait.
 * - Every chunk read keeps its read time (chunk marks), so JS can stamp it correctly however
 *   late it drains.
 * - JS learns that there is something to drain through one thread-safe call at a time (a
 *   flag coalesces them), then takes everything with drain(). When it is told is the
 *   relay's policy (see the loop): at once for keystrokes, events, the agent's OSC 7501 reports and a flood's first 256 KiB;
 *   for other output when the detector will look (quiet_notify_ns, stream_notify_ns).
 * - Bytes JS writes to the terminal (writeOut: notifications) go out between two output
 *   chunks, never inside one.
 * - The thread ends when the PTY master reports EIO/EOF (every slave closed, buffer drained)
 *   or when stop() is requested; either way it first writes what it already read (at a stop
 *   also what the master holds by then), and then posts a final notification. It never changes the file status flags of the fds it is given
 *   (they may be shared with the user's shell); it polls instead.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include <signal.h>
#include <termios.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif

#include "program_status.h"

/*
 * The mode tracker, a port of ModeTracker in src/adapters/terminal.ts (keep the two in step;
 * test/adapters/relay.test.ts feeds both the same bytes and compares). It runs here because
 * it has to see every byte, and a TUI flood carries an escape sequence every few bytes: in JS
 * that was ~1 CPU second per 200 MB, here it is a few per cent of the copy.
 */
#define MAX_PARAM_CHARS 64
enum { M_GROUND, M_ESCAPE, M_CSI, M_STRING, M_STRING_ESCAPE };
static const int MODES_OFF_BY_DEFAULT[] = {1, 47, 1047, 1049, 1000, 1001, 1002, 1003, 1005, 1006, 1015, 1016, 1004, 2004, 2026, 2048};
static const int MODES_ON_BY_DEFAULT[] = {25, 7};
#define OFF_COUNT (int)(sizeof MODES_OFF_BY_DEFAULT / sizeof MODES_OFF_BY_DEFAULT[0])
#define ON_COUNT (int)(sizeof MODES_ON_BY_DEFAULT / sizeof MODES_ON_BY_DEFAULT[0])

/*
 * Salvage: what the taps must not miss when the relay drops old output they fell behind on
 * (see tap()): OSC sequences (titles, progress, notifications, shell marks), a bell, and
 * alternate-screen switches, each kept with the stream offset just after it. At a gap the
 * ones inside it are handed over ahead of the newest bytes, as the screen mirror does for its cuts (src/adapters/screen/backlog-cut.ts).
 */
#define SALVAGE_EVENTS 32
#define SALVAGE_EVENT_MAX 1024
typedef struct {
  double end_offset;
  size_t len;
  unsigned char bytes[SALVAGE_EVENT_MAX];
} salvage_event_t;

typedef struct {
  int state;
  double offset;   /* output bytes fed so far (the position of the next byte) */
  int osc_capturing;
  size_t osc_len;  /* SIZE_MAX once too long to keep */
  unsigned char osc[SALVAGE_EVENT_MAX];
  salvage_event_t events[SALVAGE_EVENTS];
  int event_next;  /* ring index of the next event to write */
  int event_count;
  char params[MAX_PARAM_CHARS + 1];
  int params_len;
  int overflowed;
  uint32_t changed; /* bit i: OFF mode i on; bit OFF_COUNT+j: ON mode j off */
  double kitty_depth;
  int kitty_flags_set;
  int modify_other_keys_set;
  int keypad_application;
  int sgr_dirty;
  double revision;
} modes_t;

static void salvage_push(modes_t *m, const unsigned char *bytes, size_t len, double end_offset) {
  if (len > SALVAGE_EVENT_MAX) return;
  int last = (m->event_next + SALVAGE_EVENTS - 1) % SALVAGE_EVENTS;
  /* A run of bells is one bell. */
  if (len == 1 && bytes[0] == 0x07 && m->event_count > 0 && m->events[last].len == 1 && m->events[last].bytes[0] == 0x07) {
    m->events[last].end_offset = end_offset;
    return;
  }
  salvage_event_t *event = &m->events[m->event_next];
  memcpy(event->bytes, bytes, len);
  event->len = len;
  event->end_offset = end_offset;
  m->event_next = (m->event_next + 1) % SALVAGE_EVENTS;
  if (m->event_count < SALVAGE_EVENTS) m->event_count++;
}

static void osc_append(modes_t *m, const unsigned char *bytes, size_t len) {
  if (!m->osc_capturing || m->osc_len == SIZE_MAX) return;
  if (m->osc_len + len > SALVAGE_EVENT_MAX) {
    m->osc_len = SIZE_MAX; /* a title that long is bounded by the mirror anyway */
    return;
  }
  memcpy(m->osc + m->osc_len, bytes, len);
  m->osc_len += len;
}

static void osc_finish(modes_t *m, double end_offset) {
  if (m->osc_capturing && m->osc_len != SIZE_MAX) salvage_push(m, m->osc, m->osc_len, end_offset);
  m->osc_capturing = 0;
}

static int mode_bit(int mode, int *is_on_by_default) {
  for (int i = 0; i < OFF_COUNT; i++)
    if (MODES_OFF_BY_DEFAULT[i] == mode) {
      *is_on_by_default = 0;
      return i;
    }
  for (int j = 0; j < ON_COUNT; j++)
    if (MODES_ON_BY_DEFAULT[j] == mode) {
      *is_on_by_default = 1;
      return OFF_COUNT + j;
    }
  return -1;
}

/* A run of ASCII digits as a number; -1 when empty or anything else is in it. */
static double parse_digits(const char *text, int len) {
  if (len <= 0) return -1;
  double value = 0;
  for (int k = 0; k < len; k++) {
    if (text[k] < '0' || text[k] > '9') return -1;
    value = value * 10 + (text[k] - '0');
  }
  return value;
}

static void modes_reset_all(modes_t *m) {
  m->revision += 1;
  m->changed = 0;
  m->kitty_depth = 0;
  m->kitty_flags_set = 0;
  m->modify_other_keys_set = 0;
  m->keypad_application = 0;
  m->sgr_dirty = 0;
}

static int all_zeros(const char *text, int len) {
  for (int k = 0; k < len; k++)
    if (text[k] != '0') return 0;
  return 1;
}

static void modes_on_csi(modes_t *m, char final) {
  const char *params = m->params;
  int len = m->params_len;
  char prefix = len > 0 ? params[0] : '\0';
  if (prefix == '?' && (final == 'h' || final == 'l')) {
    int start = 1;
    for (int k = 1; k <= len; k++) {
      if (k < len && params[k] != ';') continue;
      double mode = parse_digits(params + start, k - start);
      start = k + 1;
      int is_on_by_default = 0;
      int bit = mode < 0 || mode > 100000 ? -1 : mode_bit((int)mode, &is_on_by_default);
      if (bit < 0) continue;
      int set = (final == 'h') != is_on_by_default; /* differs from its default */
      uint32_t before = m->changed;
      if (set) m->changed |= (1u << bit);
      else m->changed &= ~(1u << bit);
      if (m->changed != before) {
        m->revision += 1;
        if (mode == 47 || mode == 1047 || mode == 1049) {
          char switch_sequence[16];
          int n = snprintf(switch_sequence, sizeof switch_sequence, "\x1b[?%d%c", (int)mode, final);
          salvage_push(m, (const unsigned char *)switch_sequence, (size_t)n, m->offset);
        }
      }
    }
    return;
  }
  if (final == 'u') {
    if (prefix == '>') m->kitty_depth += 1;
    else if (prefix == '<') {
      double count = parse_digits(params + 1, len - 1);
      if (count <= 0) count = 1;
      m->kitty_depth = m->kitty_depth - count < 0 ? 0 : m->kitty_depth - count;
    } else if (prefix == '=') {
      int k = 1;
      while (k < len && params[k] == '0') k++;
      m->kitty_flags_set = !(k == len || params[k] == ';');
    }
    m->revision += 1;
    return;
  }
  if (final == 'm') {
    if (prefix == '>') {
      int semicolon = 1;
      while (semicolon < len && params[semicolon] != ';') semicolon++;
      if (semicolon - 1 == 1 && params[1] == '4') {
        int value_end = semicolon + 1;
        while (value_end < len && params[value_end] != ';') value_end++;
        m->modify_other_keys_set = semicolon < len && parse_digits(params + semicolon + 1, value_end - semicolon - 1) > 0;
        m->revision += 1;
      }
      return;
    }
    if (prefix != '\0' && !(prefix >= '0' && prefix <= '9')) return;
    m->sgr_dirty = !all_zeros(params, len);
  }
}

static void modes_on_escape(modes_t *m, unsigned char byte) {
  switch (byte) {
    case '[':
      m->state = M_CSI;
      m->params_len = 0;
      m->overflowed = 0;
      return;
    case ']':
      m->state = M_STRING;
      m->osc_capturing = 1;
      m->osc_len = 0;
      osc_append(m, (const unsigned char *)"\x1b]", 2);
      return;
    case 'P': case '_': case '^': case 'X':
      m->state = M_STRING;
      m->osc_capturing = 0;
      return;
    case '=':
      if (!m->keypad_application) m->revision += 1;
      m->keypad_application = 1;
      break;
    case '>':
      if (m->keypad_application) m->revision += 1;
      m->keypad_application = 0;
      break;
    case 'c':
      modes_reset_all(m);
      break;
    case 0x1b:
      return;
    default:
      break;
  }
  m->state = M_GROUND;
}

static void modes_append_params(modes_t *m, const unsigned char *data, size_t from, size_t to) {
  size_t room = (size_t)(MAX_PARAM_CHARS - m->params_len);
  size_t take = to - from < room ? to - from : room;
  memcpy(m->params + m->params_len, data + from, take);
  m->params_len += (int)take;
  if (to - from > take) m->overflowed = 1;
}

static void modes_scan(modes_t *m, const unsigned char *data, size_t len, double base);

static void modes_feed(modes_t *m, const unsigned char *data, size_t len) {
  double base = m->offset;
  modes_scan(m, data, len, base);
  m->offset = base + (double)len;
}

static void modes_scan(modes_t *m, const unsigned char *data, size_t len, double base) {
  size_t i = 0;
  while (i < len) {
    m->offset = base + (double)i;
    if (m->state == M_GROUND) {
      /*
       * TUI output has a sequence every ~10 bytes, where a byte loop beats memchr's call and
       * set-up; a long stretch of text goes to memchr after the first 64 bytes.
       */
      size_t stop = i;
      size_t bell = SIZE_MAX;
      size_t inline_end = i + 64 < len ? i + 64 : len;
      while (stop < inline_end && data[stop] != 0x1b) {
        if (data[stop] == 0x07) bell = stop;
        stop++;
      }
      if (stop == inline_end && stop < len) {
        const unsigned char *next = memchr(data + stop, 0x1b, len - stop);
        size_t far = next == NULL ? len : (size_t)(next - data);
        const unsigned char *found = memchr(data + stop, 0x07, far - stop);
        if (found != NULL) bell = (size_t)(found - data);
        stop = far;
      }
      if (bell != SIZE_MAX) salvage_push(m, (const unsigned char *)"\x07", 1, base + (double)bell + 1);
      if (stop >= len) return;
      /*
       * Fast path for a whole CSI inside this chunk: only finals h, l, u and m can change a
       * tracked mode (see modes_on_csi), so any other one is skipped here, and the common
       * colour change is decided from its bytes. Everything else takes the state machine.
       */
      size_t params = stop + 2;
      if (params < len && data[stop + 1] == '[') {
        size_t end = params;
        while (end < len && data[end] >= 0x20 && data[end] <= 0x3f) end++;
        if (end < len && end - params <= MAX_PARAM_CHARS) {
          unsigned char final = data[end];
          if (final >= 0x40 && final <= 0x7e && final != 'h' && final != 'l' && final != 'u' && final != 'm') {
            i = end + 1;
            continue;
          }
          if (final == 'm' && (end == params || (data[params] >= '0' && data[params] <= '9'))) {
            m->sgr_dirty = !all_zeros((const char *)data + params, (int)(end - params));
            i = end + 1;
            continue;
          }
        }
      }
      m->state = M_ESCAPE;
      i = stop + 1;
      continue;
    }
    if (m->state == M_STRING) {
      size_t end = i;
      while (end < len && data[end] != 0x07 && data[end] != 0x1b) end++;
      osc_append(m, data + i, end - i);
      if (end >= len) return;
      if (data[end] == 0x07) {
        osc_append(m, data + end, 1);
        osc_finish(m, base + (double)end + 1);
        m->state = M_GROUND;
      } else {
        m->state = M_STRING_ESCAPE;
      }
      i = end + 1;
      continue;
    }
    if (m->state == M_CSI) {
      size_t end = i;
      while (end < len && data[end] >= 0x20 && data[end] <= 0x3f) end++;
      if (end < len && data[end] == 'm' && m->params_len == 0) {
        /* A plain SGR decided from the bytes (the common case), as isPlainSgr does. */
        int fits = end - i <= MAX_PARAM_CHARS && (end == i || (data[i] >= '0' && data[i] <= '9'));
        if (fits) {
          m->sgr_dirty = !all_zeros((const char *)data + i, (int)(end - i));
          m->state = M_GROUND;
          i = end + 1;
          continue;
        }
      }
      if (end > i) modes_append_params(m, data, i, end);
      if (end >= len) return;
      i = end;
    }
    unsigned char byte = data[i++];
    switch (m->state) {
      case M_STRING_ESCAPE: {
        unsigned char pair[2] = {0x1b, byte};
        osc_append(m, pair, 2);
        if (byte == 0x5c) {
          osc_finish(m, base + (double)i);
          m->state = M_GROUND;
        } else {
          m->state = M_STRING;
        }
        break;
      }
      case M_ESCAPE:
        modes_on_escape(m, byte);
        break;
      case M_CSI:
        if (byte >= 0x20 && byte <= 0x3f) {
          if (m->params_len < MAX_PARAM_CHARS) m->params[m->params_len++] = (char)byte;
          else m->overflowed = 1;
          break;
        }
        if (byte == 0x1b) {
          m->state = M_ESCAPE;
          break;
        }
        if (byte < 0x20) break;
        m->state = M_GROUND;
        if (byte > 0x7e || m->overflowed) break;
        m->offset = base + (double)i;
        modes_on_csi(m, (char)byte);
        break;
      default:
        break;
    }
  }
}

/* ModeTracker.resetSequence(): what switches every mode seen on back to its default. */
static size_t modes_reset_sequence(const modes_t *m, char *out, size_t cap) {
  size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, __VA_ARGS__))
  if (m->sgr_dirty) PUT("\x1b[0m");
  if (m->kitty_depth > 0) PUT("\x1b[<%.0fu", m->kitty_depth);
  if (m->kitty_flags_set) PUT("\x1b[=0;1u");
  if (m->modify_other_keys_set) PUT("\x1b[>4m");
  if (m->keypad_application) PUT("\x1b>");
  /* Every tracked mode but the alternate screens, ascending. */
  int sorted[OFF_COUNT + ON_COUNT][2];
  int count = 0;
  for (int i = 0; i < OFF_COUNT; i++) {
    int mode = MODES_OFF_BY_DEFAULT[i];
    if (mode == 47 || mode == 1047 || mode == 1049) continue;
    if (m->changed & (1u << i)) sorted[count][0] = mode, sorted[count][1] = 0, count++;
  }
  for (int j = 0; j < ON_COUNT; j++)
    if (m->changed & (1u << (OFF_COUNT + j))) sorted[count][0] = MODES_ON_BY_DEFAULT[j], sorted[count][1] = 1, count++;
  for (int a = 1; a < count; a++)
    for (int b = a; b > 0 && sorted[b - 1][0] > sorted[b][0]; b--) {
      int mode = sorted[b][0], on = sorted[b][1];
      sorted[b][0] = sorted[b - 1][0], sorted[b][1] = sorted[b - 1][1];
      sorted[b - 1][0] = mode, sorted[b - 1][1] = on;
    }
  for (int k = 0; k < count; k++) PUT("\x1b[?%d%c", sorted[k][0], sorted[k][1] ? 'h' : 'l');
  static const int ALT_SCREENS[] = {1049, 1047, 47};
  for (int a = 0; a < 3; a++) {
    int is_on_by_default;
    int bit = mode_bit(ALT_SCREENS[a], &is_on_by_default);
    if (m->changed & (1u << bit)) PUT("\x1b[?%dl", ALT_SCREENS[a]);
  }
#undef PUT
  return n;
}

#define READ_BYTES (64 * 1024)
#define READS_PER_POLL 8
#define INPUT_BYTES 4096
/* How long a stop waits for a stuck terminal to take the output already read. */
#define STOP_FLUSH_MS 1000
/*
 * JS hears about tapped bytes once the relay has been idle this long, not per chunk: a
 * keystroke's echo completes before the main thread wakes (on two cores that wake-up competes
 * with the round trip), and a 10 fps spinner costs one wake-up per frame. Taps run on the
 * detector's time scale (100 ms and up), where 2 ms is nothing.
 */
#define NOTIFY_DELAY_MS 2
static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/*
 * Chunk marks: where each read's bytes start in the output tap and when they were read, so
 * JS gets every chunk with its own arrival time even when it drains several at once (the
 * mirror stamps titles and marks with it, the recorder writes it). Bounded: past the limit,
 * later chunks share the last mark's time (only in a flood, where JS drains often anyway).
 */
#define CHUNK_MARKS 512
typedef struct {
  double offset; /* stream offset of the chunk's first byte */
  uint64_t at_ns;
} chunk_mark_t;

/* ...unless this much is waiting (a flood): then at once, so batches stay bounded. */
#define NOTIFY_NOW_BYTES (256 * 1024)

typedef struct {
  unsigned char *data;
  size_t len;
  size_t cap;
} bytes_t;

typedef struct {
  int master_fd; /* our own dup of the master, closed by the thread */
  int in_fd;     /* borrowed, -1 for none */
  int out_fd;    /* borrowed */
  int wake_read;
  int wake_write;
  size_t tap_max;
  int lossless;
  pthread_t thread;
  int thread_started;
  int thread_joined;
  napi_threadsafe_function tsfn;

  pthread_mutex_t mutex;
  pthread_cond_t drained;
  /* Guarded by mutex. */
  bytes_t tap_out;
  bytes_t tap_in;
  bytes_t js_out;
  double dropped_out;
  int notify_pending;
  int has_unnotified;
  int has_unnotified_event; /* keystrokes, a status change, an OSC 7501 report: tell JS soon */
  uint64_t last_output_ns;   /* when the newest tapped output was read */
  uint64_t last_gap_ns;      /* between the two newest output reads */
  uint64_t last_notify_ns;   /* when JS was last told */
  uint64_t quiet_notify_ns;  /* tell JS once output has been quiet this long… */
  uint64_t stream_notify_ns; /* …or, while it streams, this long after the last time */
  chunk_mark_t marks[CHUNK_MARKS];
  int mark_count;
  int stopped; /* the thread has exited (the master reported EIO/EOF, or stop() was asked) */
  int stop_requested;
  modes_t modes; /* fed by the thread; read under the mutex */
  /*
   * OSC 7501 program status (program_status.h): the filter is the thread's alone (agentwrap's
   * own probes, written before the start, are counted in by start()); its bits are copied here
   * for drain().
   */
  status_filter_t status;
  int status_bits;
  /*
   * Output tap window (not lossless): once the taps hold more than twice this, only the newest
   * `tap_window` bytes are kept, so a flood costs the main thread a bounded copy per drain.
   */
  size_t tap_window;
  double tap_start_offset; /* stream offset of tap_out.data[0] */
  double drained_offset;   /* stream offset just after the last byte handed to JS */
} relay_t;

static int bytes_append(bytes_t *bytes, const unsigned char *data, size_t len) {
  if (bytes->len + len > bytes->cap) {
    size_t cap = bytes->cap == 0 ? 64 * 1024 : bytes->cap;
    while (cap < bytes->len + len) cap *= 2;
    unsigned char *grown = realloc(bytes->data, cap);
    if (grown == NULL) return -1;
    bytes->data = grown;
    bytes->cap = cap;
  }
  memcpy(bytes->data + bytes->len, data, len);
  bytes->len += len;
  return 0;
}

/* Caller holds the mutex. */
/*
 * Why JS is told: REASON_SIZE means a flood is filling the taps, and JS may take its time
 * (src/adapters/relay.ts drains a flood a few times a second); the others want a drain now,
 * and one may follow a SIZE notification still pending (a flood that just ended).
 */
enum { REASON_SIZE = 1, REASON_QUIET = 2, REASON_EVENT = 4 };

/*
 * A stream whose frames come about as far apart as the quiet threshold (a 10 fps spinner: just
 * over 100 ms, since timers never fire early) looked quiet before every frame and was handed
 * over frame by frame, ~10 wake-ups a second instead of the streaming schedule's ~4. While the
 * newest gap between reads says the output is such a stream, quiet waits PERIODIC_QUIET_MARGIN_MS
 * longer; a burst (a dialog drawn in several reads) or a longer pause keeps the plain threshold.
 * Only on the detector's schedule: a lossless tap (a recording) is told at once, as before.
 */
#define PERIODIC_QUIET_MARGIN_MS 50
static uint64_t quiet_ns_for(const relay_t *relay) {
  uint64_t quiet = relay->quiet_notify_ns;
  uint64_t margin = (uint64_t)PERIODIC_QUIET_MARGIN_MS * 1000000u;
  if (quiet < margin) return quiet;
  return relay->last_gap_ns >= quiet / 2 && relay->last_gap_ns <= quiet + margin ? quiet + margin : quiet;
}

static void notify_locked(relay_t *relay, int reason) {
  relay->has_unnotified = 0;
  relay->has_unnotified_event = 0;
  relay->last_notify_ns = now_ns();
  if (relay->notify_pending != 0 && !(reason != REASON_SIZE && relay->notify_pending == REASON_SIZE)) return;
  relay->notify_pending = reason;
  napi_call_threadsafe_function(relay->tsfn, (void *)(intptr_t)reason, napi_tsfn_nonblocking);
}

/*
 * Where to start the kept window: at an escape sequence or a line start shortly after `from`,
 * so the taps do not begin inside a sequence or a character.
 */
static size_t window_start(const unsigned char *data, size_t len, size_t from) {
  size_t limit = from + 4096 < len ? from + 4096 : len;
  for (size_t k = from; k < limit; k++) {
    if (data[k] == 0x1b) return k;
    if (data[k] == '\n') return k + 1;
  }
  return from;
}

static void tap(relay_t *relay, bytes_t *target, const unsigned char *data, size_t len, int is_output) {
  pthread_mutex_lock(&relay->mutex);
  if (is_output && !relay->lossless && relay->tap_window > 0) {
    if (bytes_append(target, data, len) != 0) relay->dropped_out += (double)len;
    if (target->len > 2 * relay->tap_window) {
      size_t drop = window_start(target->data, target->len, target->len - relay->tap_window);
      memmove(target->data, target->data + drop, target->len - drop);
      target->len -= drop;
      relay->dropped_out += (double)drop;
      relay->tap_start_offset += (double)drop;
      int first = 0;
      while (first + 1 < relay->mark_count && relay->marks[first + 1].offset <= relay->tap_start_offset) first++;
      memmove(relay->marks, relay->marks + first, (size_t)(relay->mark_count - first) * sizeof relay->marks[0]);
      relay->mark_count -= first;
    }
    if (target->len >= NOTIFY_NOW_BYTES) notify_locked(relay, REASON_SIZE);
    else relay->has_unnotified = 1;
    pthread_mutex_unlock(&relay->mutex);
    return;
  }
  if (target->len + len > relay->tap_max) {
    if (is_output && relay->lossless) {
      /* A recording must not lose bytes: wait for JS, as a slow terminal would make us wait. */
      while (target->len + len > relay->tap_max && target->len > 0 && !relay->stop_requested) {
        notify_locked(relay, REASON_EVENT);
        pthread_cond_wait(&relay->drained, &relay->mutex);
      }
    } else if (is_output) {
      /* JS is far behind: the oldest tapped bytes go (the mirror resynchronises), never the
       * passthrough. */
      relay->dropped_out += (double)target->len;
      relay->tap_start_offset += (double)target->len;
      target->len = 0;
      if (relay->mark_count > 1) {
        relay->marks[0] = relay->marks[relay->mark_count - 1];
        relay->mark_count = 1;
      }
    } else {
      target->len = 0; /* keystrokes only feed the recorder and the taps; same policy */
    }
  }
  if (bytes_append(target, data, len) != 0 && is_output) relay->dropped_out += (double)len;
  if (target->len >= NOTIFY_NOW_BYTES) notify_locked(relay, REASON_SIZE);
  else relay->has_unnotified = 1;
  if (!is_output) relay->has_unnotified_event = 1;
  pthread_mutex_unlock(&relay->mutex);
}

/*
 * macOS's poll() does not support devices (poll(2), BUGS): on a terminal it reports POLLNVAL
 * at once, which would leave the relay spinning with the keyboard dead. There the relay waits
 * with select(), which does support them, for its two or three fds; an fd past FD_SETSIZE
 * (select cannot hold it) goes to poll() after all. Elsewhere poll() it is.
 */
#ifdef __APPLE__
#include <sys/select.h>
static int relay_poll(struct pollfd *fds, nfds_t count, int timeout_ms) {
  fd_set readable, writable;
  FD_ZERO(&readable);
  FD_ZERO(&writable);
  int max_fd = -1;
  for (nfds_t i = 0; i < count; i++) {
    fds[i].revents = 0;
    if (fds[i].fd < 0) continue;
    if (fds[i].fd >= FD_SETSIZE) return poll(fds, count, timeout_ms);
    if (fds[i].events & POLLIN) FD_SET(fds[i].fd, &readable);
    if (fds[i].events & POLLOUT) FD_SET(fds[i].fd, &writable);
    if (fds[i].fd > max_fd) max_fd = fds[i].fd;
  }
  struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  int ready = select(max_fd + 1, &readable, &writable, NULL, timeout_ms < 0 ? NULL : &timeout);
  if (ready <= 0) return ready;
  int with_events = 0;
  for (nfds_t i = 0; i < count; i++) {
    if (fds[i].fd < 0) continue;
    /* A hangup reads as readable (the read then returns 0 or EIO), as poll's POLLHUP leads to. */
    if (FD_ISSET(fds[i].fd, &readable)) fds[i].revents |= POLLIN;
    if (FD_ISSET(fds[i].fd, &writable)) fds[i].revents |= POLLOUT;
    if (fds[i].revents != 0) with_events++;
  }
  return with_events;
}
#else
#define relay_poll poll
#endif

static int wait_fd(int fd, short events, int wake_fd, int timeout_ms) {
  struct pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
  int ready = relay_poll(fds, 2, timeout_ms);
  if (ready > 0 && (fds[1].revents & POLLIN)) {
    unsigned char sink[64];
    (void)!read(wake_fd, sink, sizeof sink);
  }
  return ready;
}

/*
 * Writes all of data to fd. Returns 0, or an errno when the fd failed for good. With
 * give_up_ms >= 0 it stops waiting after that long (returns EAGAIN).
 */
static int write_all(relay_t *relay, int fd, const unsigned char *data, size_t len, int give_up_ms) {
  size_t done = 0;
  int waited_ms = 0;
  while (done < len) {
    ssize_t written = write(fd, data + done, len - done);
    if (written > 0) {
      done += (size_t)written;
      continue;
    }
    if (written < 0 && errno == EINTR) continue;
    if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (give_up_ms >= 0 && waited_ms >= give_up_ms) return EAGAIN;
      wait_fd(fd, POLLOUT, relay->wake_read, 50);
      waited_ms += 50;
      if (give_up_ms < 0) waited_ms = 0;
      pthread_mutex_lock(&relay->mutex);
      int stopping = relay->stop_requested;
      pthread_mutex_unlock(&relay->mutex);
      if (stopping && give_up_ms < 0) give_up_ms = STOP_FLUSH_MS;
      continue;
    }
    return written < 0 ? errno : EIO;
  }
  return 0;
}

static void write_output(relay_t *relay, const unsigned char *data, size_t len, int *output_ok) {
  if (!*output_ok) return;
  /* A terminal that went away (EIO, EPIPE) takes no more: output is discarded from then on, and
   * the hangup that comes with it ends the session. */
  if (write_all(relay, relay->out_fd, data, len, -1) != 0) *output_ok = 0;
}

/* Writes whatever JS queued for the terminal; between output chunks only. */
static void write_js_output(relay_t *relay, int *output_ok) {
  pthread_mutex_lock(&relay->mutex);
  bytes_t queued = relay->js_out;
  relay->js_out = (bytes_t){NULL, 0, 0};
  pthread_mutex_unlock(&relay->mutex);
  if (queued.len > 0) write_output(relay, queued.data, queued.len, output_ok);
  free(queued.data);
}

/*
 * One chunk read from the master: an answer to the agent's 7501 probe first (before the chunk
 * that holds its DA1 query reaches the terminal, so the agent hears it before the terminal's DA1
 * reply), then the chunk to the terminal (without the 7501 output the terminal never asked for),
 * then the mode tracker, marks and taps, which see the chunk as the agent wrote it.
 * `filtered` has room for READ_BYTES + STATUS_HELD_MAX.
 */
static void relay_output(relay_t *relay, const unsigned char *data, size_t len, unsigned char *filtered, int *output_ok) {
  unsigned reports_before = relay->status.reports;
  size_t pass_len = len;
  int answers = 0;
  const unsigned char *pass = status_output(&relay->status, data, len, filtered, &pass_len, &answers) ? filtered : data;
  for (int k = 0; k < answers; k++) write_all(relay, relay->master_fd, (const unsigned char *)STATUS_PROBE_ANSWER, sizeof STATUS_PROBE_ANSWER - 1, 2000);
  if (pass_len > 0) write_output(relay, pass, pass_len, output_ok);
  uint64_t read_ns = now_ns();
  pthread_mutex_lock(&relay->mutex);
  relay->status_bits = relay->status.bits;
  modes_feed(&relay->modes, data, len);
  if (relay->last_output_ns != 0) relay->last_gap_ns = read_ns - relay->last_output_ns;
  relay->last_output_ns = read_ns;
  if (relay->mark_count < CHUNK_MARKS)
    relay->marks[relay->mark_count++] = (chunk_mark_t){relay->tap_start_offset + (double)relay->tap_out.len, read_ns};
  pthread_mutex_unlock(&relay->mutex);
  tap(relay, &relay->tap_out, data, len, 1);
  if (relay->status.reports != reports_before) {
    /* The agent reported its state (OSC 7501): the detector reads it now, not at the quiet
     * recheck or the next streaming hand-over (up to STREAMING_RECHECK_MS later). */
    pthread_mutex_lock(&relay->mutex);
    if (relay->has_unnotified) relay->has_unnotified_event = 1;
    pthread_mutex_unlock(&relay->mutex);
  }
}

/*
 * At a stop, what the master already holds is output the agent wrote: it goes out too. JS asks
 * for a stop once it heard of no output for a while after the agent's exit (pty/read-tail.ts),
 * and it hears of none while this thread waits for a terminal that is slow to read; stopping
 * at the next chunk then dropped up to the master's buffer (2 of 14 runs lost 2-5 KB of the
 * tail with a terminal that read nothing for 1.5 s across the exit). Bounded by STOP_FLUSH_MS
 * for a background process that keeps writing; never waits for more to arrive.
 */
static void drain_master_at_stop(relay_t *relay, unsigned char *buffer, unsigned char *filtered, int *output_ok) {
  uint64_t give_up_at = now_ns() + (uint64_t)STOP_FLUSH_MS * 1000000u;
  while (now_ns() < give_up_at) {
    struct pollfd master = {relay->master_fd, POLLIN, 0};
    int ready = relay_poll(&master, 1, 0);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || !(master.revents & (POLLIN | POLLHUP | POLLERR))) return;
    ssize_t count = read(relay->master_fd, buffer, READ_BYTES);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return; /* EIO (drained, every slave closed), EOF or EAGAIN */
    relay_output(relay, buffer, (size_t)count, filtered, output_ok);
  }
}

/*
 * Keystrokes (and the terminal's replies) to the agent: all of them but a reply to agentwrap's
 * own 7501 probe. A reply the filter recognised changes the bits JS is told about at once.
 */
static void relay_input(relay_t *relay, const unsigned char *data, size_t len, unsigned char *filtered) {
  size_t pass_len = len;
  const unsigned char *pass = status_input(&relay->status, data, len, filtered, &pass_len) ? filtered : data;
  /* The agent not reading its input (EAGAIN for a while) must not stop its output from
   * flowing: the write gives up after a bounded wait, and the keys are lost as they would
   * be in a full terminal buffer. */
  if (pass_len > 0) {
    write_all(relay, relay->master_fd, pass, pass_len, 2000);
    tap(relay, &relay->tap_in, pass, pass_len, 0);
  }
  pthread_mutex_lock(&relay->mutex);
  if (relay->status_bits != relay->status.bits) {
    relay->status_bits = relay->status.bits;
    relay->has_unnotified = 1;
    relay->has_unnotified_event = 1;
  }
  pthread_mutex_unlock(&relay->mutex);
}

static void *relay_main(void *arg) {
  relay_t *relay = arg;
  unsigned char *buffer = malloc(READ_BYTES);
  unsigned char *filtered = malloc(READ_BYTES + STATUS_HELD_MAX);
  unsigned char input[INPUT_BYTES];
  unsigned char filtered_input[INPUT_BYTES + STATUS_HELD_MAX];
  int output_ok = 1;
  int input_open = relay->in_fd >= 0;
  int master_open = buffer != NULL && filtered != NULL;
  /* Reading again without a poll needs a non-blocking master (libuv makes node-pty's so). */
  int reads_per_poll = (fcntl(relay->master_fd, F_GETFL) & O_NONBLOCK) ? READS_PER_POLL : 1;

  while (master_open) {
    pthread_mutex_lock(&relay->mutex);
    int stopping = relay->stop_requested;
    int has_js_output = relay->js_out.len > 0;
    int timeout_ms = -1;
    uint64_t notify_at_ns = 0;
    if (relay->has_unnotified_event) {
      timeout_ms = NOTIFY_DELAY_MS;
      notify_at_ns = 1;
    } else if (relay->has_unnotified) {
      /*
       * Output: JS is told once it has been quiet for quiet_notify_ns (when the detector's
       * quiet recheck wants the screen), or, while it keeps streaming, stream_notify_ns after
       * JS was last told (the detector's streaming recheck), but never sooner than
       * NOTIFY_DELAY_MS after the last byte. A 10 fps spinner then wakes the main thread ~4
       * times a second instead of 10, with every frame's own arrival time kept (marks).
       */
      uint64_t quiet_at = relay->last_output_ns + quiet_ns_for(relay);
      uint64_t settle_at = relay->last_output_ns + (uint64_t)NOTIFY_DELAY_MS * 1000000u;
      uint64_t stream_at = relay->last_notify_ns + relay->stream_notify_ns;
      notify_at_ns = quiet_at < (settle_at > stream_at ? settle_at : stream_at) ? quiet_at : (settle_at > stream_at ? settle_at : stream_at);
      uint64_t now = now_ns();
      timeout_ms = notify_at_ns <= now ? 0 : (int)((notify_at_ns - now + 999999u) / 1000000u);
    }
    pthread_mutex_unlock(&relay->mutex);
    if (stopping) {
      drain_master_at_stop(relay, buffer, filtered, &output_ok);
      break;
    }
    if (has_js_output) write_js_output(relay, &output_ok);

    struct pollfd fds[3];
    fds[0] = (struct pollfd){relay->master_fd, POLLIN, 0};
    fds[1] = (struct pollfd){relay->wake_read, POLLIN, 0};
    fds[2] = (struct pollfd){input_open ? relay->in_fd : -1, POLLIN, 0};
    int ready = relay_poll(fds, 3, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) {
      if (notify_at_ns != 0 && now_ns() + 500000u >= notify_at_ns) {
        pthread_mutex_lock(&relay->mutex);
        notify_locked(relay, REASON_QUIET);
        pthread_mutex_unlock(&relay->mutex);
      }
      continue;
    }
    if (fds[1].revents & POLLIN) {
      unsigned char sink[64];
      (void)!read(relay->wake_read, sink, sizeof sink);
    }
    if (fds[2].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
      ssize_t count = read(relay->in_fd, input, sizeof input);
      if (count > 0) {
        relay_input(relay, input, (size_t)count, filtered_input);
      } else if (count == 0 || (errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK)) {
        input_open = 0; /* EOF or a terminal that went away: nothing more to relay that way */
      }
    }
    /*
     * A pty hands out at most 4 KiB per read (the line discipline's buffer), so under a flood
     * the next read usually succeeds at once: try it before polling again (up to
     * READS_PER_POLL), which saves a poll per chunk; the keyboard is still polled between.
     */
    for (int reads = 0; reads < reads_per_poll && master_open && (reads > 0 || (fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))); reads++) {
      ssize_t count = read(relay->master_fd, buffer, READ_BYTES);
      if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (count > 0) {
        relay_output(relay, buffer, (size_t)count, filtered, &output_ok);
      } else if (count == 0 || errno != EINTR) {
        /* EIO: every slave fd is closed and the kernel buffer is drained. */
        master_open = 0;
      }
    }
  }

  write_js_output(relay, &output_ok);
  if (filtered != NULL) {
    /* A 7501 prefix withheld when the agent ended was not one after all: it goes out. */
    size_t held = status_flush_output(&relay->status, filtered);
    if (held > 0) write_output(relay, filtered, held, &output_ok);
  }
  free(filtered);
  free(buffer);
  close(relay->master_fd);
  relay->master_fd = -1;
  pthread_mutex_lock(&relay->mutex);
  relay->stopped = 1;
  relay->notify_pending = 0; /* the final notification always goes out */
  notify_locked(relay, REASON_EVENT);
  pthread_mutex_unlock(&relay->mutex);
  napi_release_threadsafe_function(relay->tsfn, napi_tsfn_release);
  return NULL;
}

static void call_js(napi_env env, napi_value callback, void *context, void *data) {
  (void)context;
  if (env == NULL || callback == NULL) return;
  napi_value global, reason;
  napi_get_undefined(env, &global);
  napi_create_int32(env, (int32_t)(intptr_t)data, &reason);
  napi_call_function(env, global, callback, 1, &reason, NULL);
}

static void join_thread(relay_t *relay) {
  if (relay->thread_started && !relay->thread_joined) {
    pthread_join(relay->thread, NULL);
    relay->thread_joined = 1;
  }
}

static void finalize_relay(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  relay_t *relay = data;
  pthread_mutex_lock(&relay->mutex);
  relay->stop_requested = 1;
  pthread_cond_broadcast(&relay->drained);
  pthread_mutex_unlock(&relay->mutex);
  (void)!write(relay->wake_write, "s", 1);
  join_thread(relay);
  close(relay->wake_read);
  close(relay->wake_write);
  free(relay->tap_out.data);
  free(relay->tap_in.data);
  free(relay->js_out.data);
  pthread_mutex_destroy(&relay->mutex);
  pthread_cond_destroy(&relay->drained);
  free(relay);
}

#define CHECK(call)                                                    \
  do {                                                                 \
    if ((call) != napi_ok) {                                           \
      napi_throw_error(env, NULL, "agentwrap relay: " #call " failed"); \
      return NULL;                                                     \
    }                                                                  \
  } while (0)

static relay_t *unwrap(napi_env env, napi_value value) {
  void *data = NULL;
  if (napi_get_value_external(env, value, &data) != napi_ok || data == NULL) {
    napi_throw_type_error(env, NULL, "agentwrap relay: not a relay handle");
    return NULL;
  }
  return data;
}

/* The relay handle a call's first argument holds, with the call's other arguments in argv. */
static relay_t *relay_call(napi_env env, napi_callback_info info, size_t argc, napi_value *argv) {
  size_t given = argc;
  if (napi_get_cb_info(env, info, &given, argv, NULL, NULL) != napi_ok) {
    napi_throw_error(env, NULL, "agentwrap relay: bad call");
    return NULL;
  }
  return unwrap(env, argv[0]);
}

/* start(masterFd, inFd, outFd, tapMaxBytes, lossless, onReady, tapWindowBytes, quietNotifyMs, streamNotifyMs) → handle */
static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 9) {
    napi_throw_type_error(env, NULL, "agentwrap relay: start(masterFd, inFd, outFd, tapMaxBytes, lossless, onReady, tapWindowBytes, quietNotifyMs, streamNotifyMs)");
    return NULL;
  }
  double tap_window, quiet_notify_ms, stream_notify_ms;
  CHECK(napi_get_value_double(env, argv[6], &tap_window));
  CHECK(napi_get_value_double(env, argv[7], &quiet_notify_ms));
  CHECK(napi_get_value_double(env, argv[8], &stream_notify_ms));
  int32_t master_fd, in_fd, out_fd;
  double tap_max;
  bool lossless;
  CHECK(napi_get_value_int32(env, argv[0], &master_fd));
  CHECK(napi_get_value_int32(env, argv[1], &in_fd));
  CHECK(napi_get_value_int32(env, argv[2], &out_fd));
  CHECK(napi_get_value_double(env, argv[3], &tap_max));
  CHECK(napi_get_value_bool(env, argv[4], &lossless));

  relay_t *relay = calloc(1, sizeof *relay);
  if (relay == NULL) {
    napi_throw_error(env, "ENOMEM", "agentwrap relay: out of memory");
    return NULL;
  }
  int wake[2];
  if (pipe(wake) != 0) {
    free(relay);
    napi_throw_error(env, NULL, "agentwrap relay: pipe() failed");
    return NULL;
  }
  relay->master_fd = dup(master_fd);
  if (relay->master_fd < 0) {
    close(wake[0]);
    close(wake[1]);
    free(relay);
    napi_throw_error(env, NULL, "agentwrap relay: dup(master) failed");
    return NULL;
  }
  relay->in_fd = in_fd;
  relay->out_fd = out_fd;
  relay->wake_read = wake[0];
  relay->wake_write = wake[1];
  relay->tap_max = tap_max < 65536 ? 65536 : (size_t)tap_max;
  relay->lossless = lossless;
  relay->tap_window = tap_window <= 0 ? 0 : tap_window < 4096 ? 4096 : (size_t)tap_window;
  relay->quiet_notify_ns = quiet_notify_ms < NOTIFY_DELAY_MS ? (uint64_t)NOTIFY_DELAY_MS * 1000000u : (uint64_t)(quiet_notify_ms * 1e6);
  relay->stream_notify_ns = stream_notify_ms < 0 ? 0 : (uint64_t)(stream_notify_ms * 1e6);
  status_init(&relay->status);
  /* agentwrap's own 7501 probes written to the terminal before the relay started (optional). */
  int32_t own_probes = 0;
  if (argc >= 10) napi_get_value_int32(env, argv[9], &own_probes);
  relay->status.own_pending = own_probes > 0 ? own_probes : 0;
  pthread_mutex_init(&relay->mutex, NULL);
  pthread_cond_init(&relay->drained, NULL);

  napi_value name;
  CHECK(napi_create_string_utf8(env, "agentwrap-relay", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_threadsafe_function(env, argv[5], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &relay->tsfn));

  napi_value handle;
  CHECK(napi_create_external(env, relay, finalize_relay, NULL, &handle));
  if (pthread_create(&relay->thread, NULL, relay_main, relay) != 0) {
    napi_release_threadsafe_function(relay->tsfn, napi_tsfn_abort);
    napi_throw_error(env, NULL, "agentwrap relay: pthread_create failed");
    return NULL;
  }
  relay->thread_started = 1;
  return handle;
}

static void free_bytes(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

static napi_value take_buffer(napi_env env, bytes_t *bytes) {
  napi_value value;
  if (bytes->len == 0) {
    napi_get_undefined(env, &value);
    return value;
  }
  if (napi_create_external_buffer(env, bytes->len, bytes->data, free_bytes, NULL, &value) != napi_ok) {
    /* Runtimes without external buffers: copy. */
    void *copy;
    napi_create_buffer_copy(env, bytes->len, bytes->data, &copy, &value);
    free(bytes->data);
  }
  *bytes = (bytes_t){NULL, 0, 0};
  return value;
}

static napi_value set_property(napi_env env, napi_value object, const char *key, napi_value value) {
  napi_set_named_property(env, object, key, value);
  return object;
}

/* drain(handle) → { output, input, droppedOutput, stopped, modesRevision, modesReset, chunkOffsets, chunkAgesMs } */
static napi_value drain(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  relay_t *relay = relay_call(env, info, 1, argv);
  if (relay == NULL) return NULL;

  pthread_mutex_lock(&relay->mutex);
  bytes_t out = relay->tap_out;
  double window_offset = relay->tap_start_offset;
  size_t prefix_len = 0;
  if (relay->tap_start_offset > relay->drained_offset) {
    /* A gap: CAN (abort whatever sequence the taps saw last), then what was salvaged from it. */
    bytes_t prefixed = {NULL, 0, 0};
    static const unsigned char CAN = 0x18;
    int ok = bytes_append(&prefixed, &CAN, 1) == 0;
    const modes_t *m = &relay->modes;
    for (int k = 0; ok && k < m->event_count; k++) {
      const salvage_event_t *event = &m->events[(m->event_next - m->event_count + k + SALVAGE_EVENTS) % SALVAGE_EVENTS];
      if (event->end_offset > relay->drained_offset && event->end_offset <= relay->tap_start_offset)
        ok = bytes_append(&prefixed, event->bytes, event->len) == 0;
    }
    prefix_len = prefixed.len;
    if (ok && out.len > 0) ok = bytes_append(&prefixed, out.data, out.len) == 0;
    if (!ok) prefix_len = 0;
    if (ok) {
      free(out.data);
      out = prefixed;
    } else {
      free(prefixed.data);
    }
  }
  relay->tap_start_offset += (double)relay->tap_out.len;
  relay->drained_offset = relay->tap_start_offset;
  /* Chunk marks as offsets into `out` and ages at this moment (JS converts to its clock). */
  int mark_count = out.len == 0 ? 0 : relay->mark_count;
  double mark_offsets[CHUNK_MARKS];
  double mark_ages_ms[CHUNK_MARKS];
  uint64_t drained_at_ns = now_ns();
  for (int k = 0; k < mark_count; k++) {
    double at = relay->marks[k].offset - window_offset;
    mark_offsets[k] = k == 0 || at < 0 ? 0 : at + (double)prefix_len;
    mark_ages_ms[k] = relay->marks[k].at_ns >= drained_at_ns ? 0 : (double)(drained_at_ns - relay->marks[k].at_ns) / 1e6;
  }
  relay->mark_count = 0;
  bytes_t in = relay->tap_in;
  relay->tap_out = (bytes_t){NULL, 0, 0};
  relay->tap_in = (bytes_t){NULL, 0, 0};
  double dropped = relay->dropped_out;
  relay->dropped_out = 0;
  int stopped = relay->stopped;
  int status_bits = relay->status_bits;
  double modes_revision = relay->modes.revision;
  char reset[512];
  size_t reset_len = modes_reset_sequence(&relay->modes, reset, sizeof reset);
  if (reset_len >= sizeof reset) reset_len = sizeof reset - 1;
  relay->notify_pending = 0;
  relay->has_unnotified = 0;
  pthread_cond_broadcast(&relay->drained);
  pthread_mutex_unlock(&relay->mutex);

  if (stopped) join_thread(relay);

  napi_value result, value;
  CHECK(napi_create_object(env, &result));
  set_property(env, result, "output", take_buffer(env, &out));
  set_property(env, result, "input", take_buffer(env, &in));
  napi_create_double(env, dropped, &value);
  set_property(env, result, "droppedOutput", value);
  napi_get_boolean(env, stopped, &value);
  set_property(env, result, "stopped", value);
  napi_create_double(env, modes_revision, &value);
  set_property(env, result, "modesRevision", value);
  napi_create_string_latin1(env, reset, reset_len, &value);
  set_property(env, result, "modesReset", value);
  napi_value offsets, ages, number;
  napi_create_array_with_length(env, (size_t)mark_count, &offsets);
  napi_create_array_with_length(env, (size_t)mark_count, &ages);
  for (int k = 0; k < mark_count; k++) {
    napi_create_double(env, mark_offsets[k], &number);
    napi_set_element(env, offsets, (uint32_t)k, number);
    napi_create_double(env, mark_ages_ms[k], &number);
    napi_set_element(env, ages, (uint32_t)k, number);
  }
  set_property(env, result, "chunkOffsets", offsets);
  set_property(env, result, "chunkAgesMs", ages);
  napi_create_int32(env, status_bits, &value);
  set_property(env, result, "programStatus", value);
  return result;
}

/* writeOut(handle, buffer) → false once the thread has stopped (the caller writes itself). */
static napi_value write_out(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  relay_t *relay = relay_call(env, info, 2, argv);
  if (relay == NULL) return NULL;
  void *data;
  size_t len;
  CHECK(napi_get_buffer_info(env, argv[1], &data, &len));
  pthread_mutex_lock(&relay->mutex);
  int accepted = !relay->stopped && !relay->stop_requested;
  if (accepted && bytes_append(&relay->js_out, data, len) != 0) accepted = 0;
  pthread_mutex_unlock(&relay->mutex);
  if (accepted) (void)!write(relay->wake_write, "w", 1);
  napi_value result;
  napi_get_boolean(env, accepted, &result);
  return result;
}

/* stop(handle): the thread writes what it already read, then exits (STOPPED is posted). */
static napi_value stop(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  relay_t *relay = relay_call(env, info, 1, argv);
  if (relay == NULL) return NULL;
  pthread_mutex_lock(&relay->mutex);
  relay->stop_requested = 1;
  pthread_cond_broadcast(&relay->drained);
  pthread_mutex_unlock(&relay->mutex);
  (void)!write(relay->wake_write, "s", 1);
  return NULL;
}

static void free_modes(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

/* trackerCreate() → handle: the relay's mode tracker on its own, for tests against ModeTracker. */
static napi_value tracker_create(napi_env env, napi_callback_info info) {
  (void)info;
  modes_t *modes = calloc(1, sizeof *modes);
  napi_value handle;
  CHECK(napi_create_external(env, modes, free_modes, NULL, &handle));
  return handle;
}

/* trackerFeed(handle, buffer) → { revision, reset } after feeding the bytes. */
static napi_value tracker_feed(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  modes_t *modes;
  CHECK(napi_get_value_external(env, argv[0], (void **)&modes));
  void *data;
  size_t len;
  CHECK(napi_get_buffer_info(env, argv[1], &data, &len));
  modes_feed(modes, data, len);
  char reset[512];
  size_t reset_len = modes_reset_sequence(modes, reset, sizeof reset);
  if (reset_len >= sizeof reset) reset_len = sizeof reset - 1;
  napi_value result, value;
  CHECK(napi_create_object(env, &result));
  napi_create_double(env, modes->revision, &value);
  set_property(env, result, "revision", value);
  napi_create_string_latin1(env, reset, reset_len, &value);
  set_property(env, result, "reset", value);
  return result;
}

/* statusCreate() → handle: the 7501 filter on its own, for tests against ProgramStatusFilter. */
static napi_value status_create(napi_env env, napi_callback_info info) {
  (void)info;
  status_filter_t *filter = calloc(1, sizeof *filter);
  status_init(filter);
  napi_value handle;
  CHECK(napi_create_external(env, filter, free_modes, NULL, &handle));
  return handle;
}

/* statusOutput/statusInput(handle, buffer) → { pass, answers, bits } */
static napi_value status_feed(napi_env env, napi_callback_info info, int is_input) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  status_filter_t *filter;
  CHECK(napi_get_value_external(env, argv[0], (void **)&filter));
  void *data;
  size_t len;
  CHECK(napi_get_buffer_info(env, argv[1], &data, &len));
  unsigned char *out = malloc(len + STATUS_HELD_MAX);
  if (out == NULL) return NULL;
  size_t out_len = 0;
  int answers = 0;
  int changed = is_input ? status_input(filter, data, len, out, &out_len) : status_output(filter, data, len, out, &out_len, &answers);
  napi_value result, value;
  void *copy;
  CHECK(napi_create_object(env, &result));
  napi_create_buffer_copy(env, changed ? out_len : len, changed ? out : data, &copy, &value);
  free(out);
  set_property(env, result, "pass", value);
  napi_create_int32(env, answers, &value);
  set_property(env, result, "answers", value);
  napi_create_int32(env, filter->bits, &value);
  set_property(env, result, "bits", value);
  return result;
}

static napi_value status_output_js(napi_env env, napi_callback_info info) { return status_feed(env, info, 0); }
static napi_value status_input_js(napi_env env, napi_callback_info info) { return status_feed(env, info, 1); }

static napi_value status_own_probe_js(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  status_filter_t *filter;
  CHECK(napi_get_value_external(env, argv[0], (void **)&filter));
  filter->own_pending++;
  return NULL;
}

/*
 * At process exit Node restores the termios and file flags it saved at start on every fd 0-2
 * that was a terminal (ResetStdio, an atexit handler) and asserts that tcsetattr worked: on a
 * terminal that hung up (the tmux server killed, the window closed) it fails with EIO and Node
 * aborts with a native stack dump. Checking for a hangup here is not enough: the hangup can
 * land between this check and Node's call (seen when the agent exits as the server is killed).
 * So this handler, which runs just before Node's (atexit handlers run last-in, first-out, and
 * Node registers its own at start), does Node's job itself and leaves it nothing to do: the
 * terminal's modes were already put back by agentwrap's own exit path (terminal.ts restore: raw
 * mode off, the `stty -g` snapshot), so it only makes the file blocking again, as the shell had
 * it, and then points each terminal fd 0-2 at /dev/null, which ResetStdio skips as "reopened".
 * Nothing is written to the terminal after this: the process is past its last JavaScript.
 */
static void detach_terminal_stdio(void) {
  for (int fd = 0; fd <= 2; fd++) {
    struct termios settings;
    if (tcgetattr(fd, &settings) == 0) {
      int flags = fcntl(fd, F_GETFL);
      if (flags != -1 && (flags & O_NONBLOCK)) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    } else if (errno != EIO) {
      continue; /* not a terminal, or closed: Node skips it itself */
    }
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd < 0) continue;
    if (null_fd != fd) {
      dup2(null_fd, fd);
      close(null_fd);
    }
  }
}

/*
 * outputRaw(fd): the terminal's output post-processing off (`stty -opost` without starting a
 * process: agentwrap does it before the agent is spawned, so the agent's first bytes already pass
 * as they are, and the 50-150 ms an stty takes on a loaded machine is not spent before the
 * agent's first screen). Returns whether it was done.
 */
static napi_value output_raw(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_value_int32(env, argv[0], &fd) != napi_ok) fd = -1;
  int is_done = 0;
  struct termios modes;
  if (fd >= 0 && tcgetattr(fd, &modes) == 0) {
    modes.c_oflag &= ~(tcflag_t)OPOST;
    is_done = tcsetattr(fd, TCSANOW, &modes) == 0;
  }
  napi_value result;
  napi_get_boolean(env, is_done, &result);
  return result;
}

/*
 * modeSnapshot(fd): the terminal's settings as GNU `stty -g` prints them ("iflag:oflag:cflag:
 * lflag" then every c_cc, in hex), read with one tcgetattr instead of an stty process before the
 * agent is spawned; `stty <snapshot>` (the restore, the terminal guardian) reads it back. Linux
 * only (macOS's stty -g has another format): null elsewhere or when fd is not a terminal.
 */
static napi_value mode_snapshot(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  napi_value result;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_value_int32(env, argv[0], &fd) != napi_ok) fd = -1;
#ifdef __linux__
  struct termios modes;
  if (fd >= 0 && tcgetattr(fd, &modes) == 0) {
    char text[64 + NCCS * 4];
    int used = snprintf(text, sizeof text, "%lx:%lx:%lx:%lx", (unsigned long)modes.c_iflag, (unsigned long)modes.c_oflag,
                        (unsigned long)modes.c_cflag, (unsigned long)modes.c_lflag);
    for (int i = 0; i < NCCS && used > 0 && (size_t)used < sizeof text; ++i) {
      used += snprintf(text + used, sizeof text - (size_t)used, ":%lx", (unsigned long)modes.c_cc[i]);
    }
    if (used > 0 && (size_t)used < sizeof text) {
      napi_create_string_utf8(env, text, (size_t)used, &result);
      return result;
    }
  }
#else
  (void)fd;
#endif
  napi_get_null(env, &result);
  return result;
}

/*
 * trimHeap(): malloc_trim(0), glibc only (false elsewhere). After a burst of output, malloc keeps
 * the chunks freed by the relay thread's buffers, the hand-overs and the mirror's parsing, in
 * every arena: a wrapper that relayed 50 MB stayed ~4 MB above one that never did until this
 * gave them back (test/bench/NOTES.md, issue 34). True when some memory was returned.
 */
static napi_value trim_heap(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#ifdef __GLIBC__
  napi_get_boolean(env, malloc_trim(0) == 1, &result);
#else
  napi_get_boolean(env, false, &result);
#endif
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  static int is_exit_hook_set = 0;
  if (!is_exit_hook_set) {
    is_exit_hook_set = 1;
    atexit(detach_terminal_stdio);
  }
  napi_property_descriptor properties[] = {
      {"start", NULL, start, NULL, NULL, NULL, napi_default, NULL},
      {"drain", NULL, drain, NULL, NULL, NULL, napi_default, NULL},
      {"writeOut", NULL, write_out, NULL, NULL, NULL, napi_default, NULL},
      {"stop", NULL, stop, NULL, NULL, NULL, napi_default, NULL},
      {"trackerCreate", NULL, tracker_create, NULL, NULL, NULL, napi_default, NULL},
      {"trackerFeed", NULL, tracker_feed, NULL, NULL, NULL, napi_default, NULL},
      {"statusCreate", NULL, status_create, NULL, NULL, NULL, napi_default, NULL},
      {"statusOutput", NULL, status_output_js, NULL, NULL, NULL, napi_default, NULL},
      {"statusInput", NULL, status_input_js, NULL, NULL, NULL, napi_default, NULL},
      {"statusOwnProbe", NULL, status_own_probe_js, NULL, NULL, NULL, napi_default, NULL},
      {"outputRaw", NULL, output_raw, NULL, NULL, NULL, napi_default, NULL},
      {"modeSnapshot", NULL, mode_snapshot, NULL, NULL, NULL, napi_default, NULL},
      {"trimHeap", NULL, trim_heap, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
