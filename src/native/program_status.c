/* The C port of src/adapters/terminal/program-status.ts: see program_status.h. */
#include "program_status.h"

#include <string.h>

#define ESC 0x1b
#define BEL 0x07
#define CAN 0x18
#define SUB 0x1a
#define BACKSLASH 0x5c
#define QUESTION 0x3f
/* On input a shorter held prefix is let go at a chunk's end (a lone ESC is the Escape key). */
#define INPUT_HOLD_MIN 3

static const unsigned char OSC_PREFIX[] = {0x1b, 0x5d, 0x37, 0x35, 0x30, 0x31, 0x3b};
#define OSC_PREFIX_LEN ((int)sizeof OSC_PREFIX)

enum { P_GROUND, P_ESCAPE, P_PREFIX, P_DATA, P_DATA_ESCAPE, P_STR, P_STR_ESCAPE };

typedef struct {
  unsigned char *bytes;
  size_t n;
  int is_identical;
} sink_t;

static void put(sink_t *out, unsigned char b) { out->bytes[out->n++] = b; }

static int is_stripping(const status_filter_t *f) {
  return (f->bits & (STATUS_ANSWERED_AGENT | STATUS_OUTER_UNDERSTANDS)) == STATUS_ANSWERED_AGENT;
}

/* The direction's policy: withhold a possible prefix, and drop a complete withheld one. */
static int should_hold(const status_filter_t *f, int is_input) {
  return is_input ? f->own_pending > 0 && f->agent_pending == 0 : is_stripping(f);
}

static void sequence_ended(status_filter_t *f, int is_input, int is_query, int is_dropped) {
  if (is_input) {
    if (!is_query) return;
    f->bits |= STATUS_OUTER_UNDERSTANDS;
    if (is_dropped || f->agent_pending == 0) {
      if (f->own_pending > 0) f->own_pending--;
    } else {
      f->agent_pending--;
    }
    return;
  }
  if (!is_query) {
    f->reports++;
    if (!is_dropped) f->bits |= STATUS_AGENT_SPOKE;
    return;
  }
  f->bits |= STATUS_AGENT_PROBED;
  if (!is_dropped) f->agent_pending++;
  if (!(f->bits & STATUS_OUTER_UNDERSTANDS)) {
    f->answers++;
    f->bits |= STATUS_ANSWERED_AGENT;
  }
}

static void keep(status_scan_t *s, unsigned char b, sink_t *out) {
  if (s->is_holding && s->held_len < STATUS_HELD_MAX) {
    s->held[s->held_len++] = b;
    out->is_identical = 0;
  } else {
    put(out, b);
  }
}

static void release(status_scan_t *s, sink_t *out) {
  if (s->held_len == 0) return;
  for (int k = 0; k < s->held_len; k++) put(out, s->held[k]);
  s->held_len = 0;
  out->is_identical = 0;
}

static void begin(status_filter_t *f, status_scan_t *s, int is_input, sink_t *out) {
  s->phase = P_ESCAPE;
  s->is_holding = should_hold(f, is_input);
  keep(s, ESC, out);
}

static void pass(status_scan_t *s, unsigned char b, sink_t *out) {
  if (s->is_dropping) out->is_identical = 0;
  else put(out, b);
}

static void end_sequence(status_filter_t *f, status_scan_t *s, int is_input) {
  sequence_ended(f, is_input, s->first == QUESTION, s->is_dropping);
  s->phase = P_GROUND;
  s->is_dropping = 0;
}

static void abort_sequence(status_scan_t *s) {
  s->phase = P_GROUND;
  s->is_dropping = 0;
}

static void step(status_filter_t *f, status_scan_t *s, int is_input, unsigned char b, sink_t *out) {
  switch (s->phase) {
    case P_GROUND:
      if (b == ESC) begin(f, s, is_input, out);
      else put(out, b);
      return;
    case P_ESCAPE:
      if (b == 0x5d) {
        keep(s, b, out);
        s->phase = P_PREFIX;
        s->matched = 2;
        return;
      }
      release(s, out);
      if (b == ESC) {
        begin(f, s, is_input, out);
        return;
      }
      put(out, b);
      s->phase = (b == 0x50 || b == 0x58 || b == 0x5e || b == 0x5f) ? P_STR : P_GROUND;
      return;
    case P_PREFIX:
      if (b == OSC_PREFIX[s->matched]) {
        keep(s, b, out);
        s->matched++;
        if (s->matched == OSC_PREFIX_LEN) {
          s->phase = P_DATA;
          s->first = -1;
          s->is_dropping = s->is_holding && should_hold(f, is_input);
          if (s->is_dropping) s->held_len = 0;
          else release(s, out);
          s->is_holding = 0;
        }
        return;
      }
      release(s, out);
      s->phase = P_GROUND;
      step(f, s, is_input, b, out);
      return;
    case P_DATA:
      if (s->first < 0) s->first = b;
      if (b == ESC) {
        if (!s->is_dropping) put(out, b);
        s->phase = P_DATA_ESCAPE;
        return;
      }
      pass(s, b, out);
      if (b == BEL) end_sequence(f, s, is_input);
      else if (b == CAN || b == SUB) abort_sequence(s);
      return;
    case P_DATA_ESCAPE:
      if (b == BACKSLASH) {
        pass(s, b, out);
        end_sequence(f, s, is_input);
        return;
      }
      if (s->is_dropping) {
        abort_sequence(s);
        begin(f, s, is_input, out);
      } else {
        abort_sequence(s);
        s->phase = P_ESCAPE;
        s->is_holding = 0;
      }
      step(f, s, is_input, b, out);
      return;
    case P_STR:
      put(out, b);
      if (b == ESC) s->phase = P_STR_ESCAPE;
      else if (b == CAN || b == SUB) s->phase = P_GROUND;
      return;
    default: /* P_STR_ESCAPE */
      put(out, b);
      s->phase = b == BACKSLASH ? P_GROUND : b == ESC ? P_STR_ESCAPE : P_STR;
      return;
  }
}

static int scan(status_filter_t *f, status_scan_t *s, int is_input, const unsigned char *data, size_t len, unsigned char *bytes, size_t *out_len) {
  sink_t out = {bytes, 0, 1};
  size_t k = 0;
  while (k < len) {
    if (s->phase == P_GROUND) {
      const unsigned char *next = memchr(data + k, ESC, len - k);
      size_t end = next == NULL ? len : (size_t)(next - data);
      memcpy(out.bytes + out.n, data + k, end - k);
      out.n += end - k;
      k = end;
      if (k == len) break;
    }
    step(f, s, is_input, data[k], &out);
    k++;
  }
  if (is_input && s->is_holding && s->held_len > 0 && s->held_len < INPUT_HOLD_MIN) {
    release(s, &out);
    s->is_holding = 0;
  }
  *out_len = out.n;
  return !(out.is_identical && out.n == len);
}

void status_init(status_filter_t *f) {
  memset(f, 0, sizeof *f);
  f->out.first = -1;
  f->in.first = -1;
}

int status_output(status_filter_t *f, const unsigned char *data, size_t len, unsigned char *out, size_t *out_len, int *answers) {
  f->answers = 0;
  int changed = scan(f, &f->out, 0, data, len, out, out_len);
  *answers = f->answers;
  return changed;
}

int status_input(status_filter_t *f, const unsigned char *data, size_t len, unsigned char *out, size_t *out_len) {
  return scan(f, &f->in, 1, data, len, out, out_len);
}

size_t status_flush_output(status_filter_t *f, unsigned char *out) {
  size_t n = (size_t)f->out.held_len;
  memcpy(out, f->out.held, n);
  f->out.held_len = 0;
  f->out.is_holding = 0;
  return n;
}
