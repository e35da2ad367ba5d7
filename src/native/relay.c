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
 *   written to the PTY first, then appended to the input tap. Taps are bounded (tap_max bytes):
 *   when JS falls that far behind, the oldest tapped output is discarded and counted (never
 *   the passthrough), unless the relay is lossless (a recording is on), in which case the
 *   thread waits for JS to drain, as a slow terminal would make it wait.
 * - JS learns that there is something to drain through one thread-safe call at a time (a
 *   flag coalesces them), then takes everything with drain().
 * - Bytes JS writes to the terminal (writeOut: notifications) go out between two output
 *   chunks, never inside one.
 * - The thread ends when the PTY master reports EIO/EOF (every slave closed, buffer drained)
 *   or when stop() is requested; either way it first writes what it already read, and then
 *   posts a final notification. It never changes the file status flags of the fds it is given
 *   (they may be shared with the user's shell); it polls instead.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_BYTES (64 * 1024)
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
/* ...unless this much is waiting (a flood): then at once, so batches stay bounded. */
#define NOTIFY_NOW_BYTES (256 * 1024)

enum {
  EVENT_ENDED = 1,        /* the master reported EIO/EOF: every byte was read */
  EVENT_INPUT_ENDED = 2,  /* the input fd reported EOF or an error */
  EVENT_OUTPUT_FAILED = 4,/* writing to the terminal failed (it went away) */
  EVENT_STOPPED = 8       /* the thread has exited (after ENDED or a stop request) */
};

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
  int events;
  int stop_requested;
  int output_errno;
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
static void notify_locked(relay_t *relay) {
  relay->has_unnotified = 0;
  if (relay->notify_pending) return;
  relay->notify_pending = 1;
  napi_call_threadsafe_function(relay->tsfn, NULL, napi_tsfn_nonblocking);
}

static void post_event(relay_t *relay, int event) {
  pthread_mutex_lock(&relay->mutex);
  relay->events |= event;
  notify_locked(relay);
  pthread_mutex_unlock(&relay->mutex);
}

static void tap(relay_t *relay, bytes_t *target, const unsigned char *data, size_t len, int is_output) {
  pthread_mutex_lock(&relay->mutex);
  if (target->len + len > relay->tap_max) {
    if (is_output && relay->lossless) {
      /* A recording must not lose bytes: wait for JS, as a slow terminal would make us wait. */
      while (target->len + len > relay->tap_max && target->len > 0 && !relay->stop_requested) {
        notify_locked(relay);
        pthread_cond_wait(&relay->drained, &relay->mutex);
      }
    } else if (is_output) {
      /* JS is far behind: the oldest tapped bytes go (the mirror resynchronises), never the
       * passthrough. */
      relay->dropped_out += (double)target->len;
      target->len = 0;
    } else {
      target->len = 0; /* keystrokes only feed the recorder and the taps; same policy */
    }
  }
  if (bytes_append(target, data, len) != 0 && is_output) relay->dropped_out += (double)len;
  if (target->len >= NOTIFY_NOW_BYTES) notify_locked(relay);
  else if (!relay->notify_pending) relay->has_unnotified = 1;
  pthread_mutex_unlock(&relay->mutex);
}

static int wait_fd(int fd, short events, int wake_fd, int timeout_ms) {
  struct pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
  int ready = poll(fds, 2, timeout_ms);
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
  int failure = write_all(relay, relay->out_fd, data, len, -1);
  if (failure == 0) return;
  *output_ok = 0;
  pthread_mutex_lock(&relay->mutex);
  relay->output_errno = failure;
  relay->events |= EVENT_OUTPUT_FAILED;
  notify_locked(relay);
  pthread_mutex_unlock(&relay->mutex);
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

static void *relay_main(void *arg) {
  relay_t *relay = arg;
  unsigned char *buffer = malloc(READ_BYTES);
  unsigned char input[INPUT_BYTES];
  int output_ok = 1;
  int input_open = relay->in_fd >= 0;
  int master_open = buffer != NULL;

  while (master_open) {
    pthread_mutex_lock(&relay->mutex);
    int stopping = relay->stop_requested;
    int has_js_output = relay->js_out.len > 0;
    int timeout_ms = relay->has_unnotified ? NOTIFY_DELAY_MS : -1;
    pthread_mutex_unlock(&relay->mutex);
    if (stopping) break;
    if (has_js_output) write_js_output(relay, &output_ok);

    struct pollfd fds[3];
    fds[0] = (struct pollfd){relay->master_fd, POLLIN, 0};
    fds[1] = (struct pollfd){relay->wake_read, POLLIN, 0};
    fds[2] = (struct pollfd){input_open ? relay->in_fd : -1, POLLIN, 0};
    int ready = poll(fds, 3, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) {
      pthread_mutex_lock(&relay->mutex);
      notify_locked(relay);
      pthread_mutex_unlock(&relay->mutex);
      continue;
    }
    if (fds[1].revents & POLLIN) {
      unsigned char sink[64];
      (void)!read(relay->wake_read, sink, sizeof sink);
    }
    if (fds[2].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
      ssize_t count = read(relay->in_fd, input, sizeof input);
      if (count > 0) {
        /* The agent not reading its input (EAGAIN for a while) must not stop its output from
         * flowing: the write gives up after a bounded wait, and the keys are lost as they would
         * be in a full terminal buffer. */
        write_all(relay, relay->master_fd, input, (size_t)count, 2000);
        tap(relay, &relay->tap_in, input, (size_t)count, 0);
      } else if (count == 0 || (errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK)) {
        input_open = 0;
        post_event(relay, EVENT_INPUT_ENDED);
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
      ssize_t count = read(relay->master_fd, buffer, READ_BYTES);
      if (count > 0) {
        write_output(relay, buffer, (size_t)count, &output_ok);
        tap(relay, &relay->tap_out, buffer, (size_t)count, 1);
      } else if (count == 0 || (errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK)) {
        /* EIO: every slave fd is closed and the kernel buffer is drained. */
        master_open = 0;
      }
    }
  }

  write_js_output(relay, &output_ok);
  free(buffer);
  close(relay->master_fd);
  relay->master_fd = -1;
  pthread_mutex_lock(&relay->mutex);
  relay->events |= master_open ? EVENT_STOPPED : (EVENT_ENDED | EVENT_STOPPED);
  relay->notify_pending = 0; /* the final notification always goes out */
  notify_locked(relay);
  pthread_mutex_unlock(&relay->mutex);
  napi_release_threadsafe_function(relay->tsfn, napi_tsfn_release);
  return NULL;
}

static void call_js(napi_env env, napi_value callback, void *context, void *data) {
  (void)context;
  (void)data;
  if (env == NULL || callback == NULL) return;
  napi_value global;
  napi_get_undefined(env, &global);
  napi_call_function(env, global, callback, 0, NULL, NULL);
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

/* start(masterFd, inFd, outFd, tapMaxBytes, lossless, onReady) → handle */
static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 6) {
    napi_throw_type_error(env, NULL, "agentwrap relay: start(masterFd, inFd, outFd, tapMaxBytes, lossless, onReady)");
    return NULL;
  }
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

/* drain(handle) → { output, input, droppedOutput, ended, inputEnded, outputErrno, stopped } */
static napi_value drain(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  relay_t *relay = unwrap(env, argv[0]);
  if (relay == NULL) return NULL;

  pthread_mutex_lock(&relay->mutex);
  bytes_t out = relay->tap_out;
  bytes_t in = relay->tap_in;
  relay->tap_out = (bytes_t){NULL, 0, 0};
  relay->tap_in = (bytes_t){NULL, 0, 0};
  double dropped = relay->dropped_out;
  relay->dropped_out = 0;
  int events = relay->events;
  int output_errno = relay->output_errno;
  relay->events &= ~(EVENT_INPUT_ENDED | EVENT_OUTPUT_FAILED);
  relay->notify_pending = 0;
  relay->has_unnotified = 0;
  pthread_cond_broadcast(&relay->drained);
  pthread_mutex_unlock(&relay->mutex);

  if (events & EVENT_STOPPED) join_thread(relay);

  napi_value result, value;
  CHECK(napi_create_object(env, &result));
  set_property(env, result, "output", take_buffer(env, &out));
  set_property(env, result, "input", take_buffer(env, &in));
  napi_create_double(env, dropped, &value);
  set_property(env, result, "droppedOutput", value);
  napi_get_boolean(env, (events & EVENT_ENDED) != 0, &value);
  set_property(env, result, "ended", value);
  napi_get_boolean(env, (events & EVENT_INPUT_ENDED) != 0, &value);
  set_property(env, result, "inputEnded", value);
  napi_create_int32(env, (events & EVENT_OUTPUT_FAILED) ? output_errno : 0, &value);
  set_property(env, result, "outputErrno", value);
  napi_get_boolean(env, (events & EVENT_STOPPED) != 0, &value);
  set_property(env, result, "stopped", value);
  return result;
}

/* writeOut(handle, buffer) → false once the thread has stopped (the caller writes itself). */
static napi_value write_out(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  relay_t *relay = unwrap(env, argv[0]);
  if (relay == NULL) return NULL;
  void *data;
  size_t len;
  CHECK(napi_get_buffer_info(env, argv[1], &data, &len));
  pthread_mutex_lock(&relay->mutex);
  int accepted = !(relay->events & EVENT_STOPPED) && !relay->stop_requested;
  if (accepted && bytes_append(&relay->js_out, data, len) != 0) accepted = 0;
  pthread_mutex_unlock(&relay->mutex);
  if (accepted) (void)!write(relay->wake_write, "w", 1);
  napi_value result;
  napi_get_boolean(env, accepted, &result);
  return result;
}

/* stop(handle): the thread writes what it already read, then exits (STOPPED is posted). */
static napi_value stop(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  relay_t *relay = unwrap(env, argv[0]);
  if (relay == NULL) return NULL;
  pthread_mutex_lock(&relay->mutex);
  relay->stop_requested = 1;
  pthread_cond_broadcast(&relay->drained);
  pthread_mutex_unlock(&relay->mutex);
  (void)!write(relay->wake_write, "s", 1);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"start", NULL, start, NULL, NULL, NULL, napi_default, NULL},
      {"drain", NULL, drain, NULL, NULL, NULL, napi_default, NULL},
      {"writeOut", NULL, write_out, NULL, NULL, NULL, napi_default, NULL},
      {"stop", NULL, stop, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
