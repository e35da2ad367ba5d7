/*
 * OSC 7501 program status on the relay thread: the C port of ProgramStatusFilter in
 * src/adapters/terminal/program-status.ts (keep the two in step; the test feeds both the same
 * bytes). It answers an agent's probe when the user's terminal does not, keeps the 7501 output
 * that answer brought out from a terminal that never answered, and finds the terminal's own
 * 7501 reply in the user's input. Only the relay thread touches a filter.
 */
#ifndef AGENTWRAP_PROGRAM_STATUS_H
#define AGENTWRAP_PROGRAM_STATUS_H

#include <stddef.h>

/* Bytes a scanner may withhold at a chunk's end (the longest prefix is 7). */
#define STATUS_HELD_MAX 16

#define STATUS_OUTER_UNDERSTANDS 1
#define STATUS_ANSWERED_AGENT 2
#define STATUS_AGENT_PROBED 4
#define STATUS_AGENT_SPOKE 8

#define STATUS_PROBE "\x1b]7501;?\x07"
#define STATUS_PROBE_ANSWER "\x1b]7501;?1\x1b\\"

typedef struct {
  int phase;
  int matched;
  int is_holding;
  int is_dropping;
  int first;
  unsigned char held[STATUS_HELD_MAX];
  int held_len;
} status_scan_t;

typedef struct {
  status_scan_t out;
  status_scan_t in;
  int bits;
  int answers;
  unsigned reports; /* complete reports (not probes) the agent wrote; wraps */
  int agent_pending;
  int own_pending;
} status_filter_t;

void status_init(status_filter_t *f);
/*
 * The agent's output: the bytes for the terminal go to `out` (capacity len + STATUS_HELD_MAX),
 * their count to *out_len; returns 1 when they differ from `data` (else `out` is not needed).
 * *answers: probes to answer with STATUS_PROBE_ANSWER before the bytes go out.
 */
int status_output(status_filter_t *f, const unsigned char *data, size_t len, unsigned char *out, size_t *out_len, int *answers);
/* The user's input; same contract, without answers. */
int status_input(status_filter_t *f, const unsigned char *data, size_t len, unsigned char *out, size_t *out_len);
/* Output still withheld at the end of the stream, moved to `out` (STATUS_HELD_MAX); returns the count. */
size_t status_flush_output(status_filter_t *f, unsigned char *out);

#endif
