/*
 * fake-cli: a native stand-in for `claude` (stream-json + control protocol) and `codex exec --json`.
 *
 * Why native: on a 2-vCPU machine a Node fake would start in ~40 ms and burn a core producing
 * output, hiding the SDK's start-up cost and stealing CPU from the consumer we measure. This one
 * starts in ~1 ms, pre-builds every message before the turn begins and writes them with one big
 * write() loop, so the consumer is the only thing doing work.
 *
 * Mode: the basename of argv[0] — "codex…" speaks codex exec events, anything else Claude.
 * Tuning comes from the environment, which every SDK under test passes through to its CLI:
 *   FAKE_N       messages per turn (default 1)
 *   FAKE_S       bytes per message line, excluding the newline (default 200; padded text)
 *   FAKE_REPEAT  how many times the N messages are written per turn (default 1): a flood of
 *                N × S × REPEAT bytes without pre-building it all
 *   FAKE_K       Claude only: can_use_tool round trips before the messages (default 0)
 *   FAKE_REPORT  file that receives the round-trip samples as JSON (Claude, K > 0)
 *   FAKE_LOG     file that receives argv and the first bytes of each stdin line (debugging)
 *
 * Claude: answers every control_request (initialize gets a plausible payload), and on each user
 * message runs one turn: system/init, K round trips, N assistant messages, one result. Exits 0 at
 * stdin EOF.
 * Codex: reads stdin to EOF (the SDKs write the prompt there and close it), then writes
 * thread.started, turn.started, N item.completed agent_message events, turn.completed.
 * Both answer their version flag the way the real CLIs do and ignore every other flag.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static FILE *logf_;

static void die(const char *what) {
  fprintf(stderr, "fake-cli: %s: %s\n", what, strerror(errno));
  exit(2);
}

static size_t env_size(const char *name, size_t fallback) {
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  return (size_t)strtoull(v, NULL, 10);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Blocking write of the whole buffer; the pipe's reader paces us. */
static void write_all(const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(1, buf, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) exit(0); /* the reader went away: nothing left to do */
      die("write");
    }
    buf += n;
    len -= (size_t)n;
  }
}

static void write_str(const char *s) { write_all(s, strlen(s)); }

static void write_fmt(const char *fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line) {
    fprintf(stderr, "fake-cli: line too long\n");
    exit(2);
  }
  write_all(line, (size_t)n);
}

/* ---- stdin as lines -------------------------------------------------------------------------- */

static char *rbuf;
static size_t rcap, rlen, rpos;

/* Next stdin line without its newline (NUL-terminated, valid until the next call); NULL at EOF. */
static char *read_line(void) {
  for (;;) {
    char *nl = memchr(rbuf + rpos, '\n', rlen - rpos);
    if (nl) {
      char *line = rbuf + rpos;
      *nl = '\0';
      rpos = (size_t)(nl - rbuf) + 1;
      if (logf_) fprintf(logf_, "stdin: %.300s\n", line), fflush(logf_);
      return line;
    }
    if (rpos > 0) { /* compact */
      memmove(rbuf, rbuf + rpos, rlen - rpos);
      rlen -= rpos;
      rpos = 0;
    }
    if (rlen + 65536 + 1 > rcap) {
      rcap = (rlen + 65536 + 1) * 2;
      rbuf = realloc(rbuf, rcap);
      if (!rbuf) die("realloc");
    }
    ssize_t n = read(0, rbuf + rlen, rcap - rlen - 1);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("read");
    }
    if (n == 0) {
      if (rlen == 0) return NULL;
      rbuf[rlen] = '\0'; /* a last line without newline */
      rpos = rlen;
      return rbuf;
    }
    rlen += (size_t)n;
  }
}

/* Copies the value of "request_id" from a JSON line (SDKs write compact JSON). */
static void request_id_of(const char *line, char *out, size_t cap) {
  const char *p = strstr(line, "\"request_id\"");
  out[0] = '\0';
  if (!p) return;
  p = strchr(p + 12, '"');
  if (!p) return;
  p++;
  size_t i = 0;
  while (*p && *p != '"' && i + 1 < cap) out[i++] = *p++;
  out[i] = '\0';
}

/* ---- pre-built messages ---------------------------------------------------------------------- */

/*
 * N copies of one line of exactly `size` bytes (plus '\n'). Each copy gets its own id, patched into
 * fixed-width digits, so the consumer cannot take any shortcut on identical lines. The text is
 * prose-like with a JSON escape every 64 bytes, as real assistant text has.
 */
static char *build_batch(int codex, size_t n, size_t size, size_t *out_len) {
  static const char filler[] = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do\\n";
  char prefix[256], suffix[512];
  if (codex) {
    snprintf(prefix, sizeof prefix, "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_%010d\",\"type\":\"agent_message\",\"text\":\"", 0);
    snprintf(suffix, sizeof suffix, "\"}}");
  } else {
    /* The smallest envelope the SDKs accept as an assistant message, so 200-byte lines still
       carry some text; larger sizes only grow the text. */
    snprintf(prefix, sizeof prefix,
             "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_%010d\",\"role\":\"assistant\",\"model\":\"fake\","
             "\"content\":[{\"type\":\"text\",\"text\":\"", 0);
    snprintf(suffix, sizeof suffix, "\"}]},\"parent_tool_use_id\":null,\"session_id\":\"fake-session\"}");
  }
  size_t pl = strlen(prefix), sl = strlen(suffix);
  size_t pad = size > pl + sl ? size - pl - sl : 1;
  size_t line_len = pl + pad + sl + 1;
  /* Digits of the id inside the prefix: right after `item_` / `msg_`. */
  size_t id_at = (size_t)(strstr(prefix, codex ? "item_" : "msg_") - prefix) + (codex ? 5 : 4);

  char *buf = malloc(n * line_len + 1);
  if (!buf) die("malloc batch");
  char *line = buf;
  memcpy(line, prefix, pl);
  for (size_t i = 0; i < pad; i++) line[pl + i] = filler[i % (sizeof filler - 1)];
  if (line[pl + pad - 1] == '\\') line[pl + pad - 1] = '.'; /* never cut an escape in half */
  memcpy(line + pl + pad, suffix, sl);
  line[line_len - 1] = '\n';
  for (size_t i = 1; i < n; i++) memcpy(buf + i * line_len, buf, line_len);
  for (size_t i = 0; i < n; i++) {
    char digits[32];
    snprintf(digits, sizeof digits, "%010zu", i % 10000000000u);
    memcpy(buf + i * line_len + id_at, digits, 10);
  }
  *out_len = n * line_len;
  return buf;
}

/* ---- Claude ---------------------------------------------------------------------------------- */

static void answer_control_request(const char *line) {
  char id[256];
  request_id_of(line, id, sizeof id);
  if (strstr(line, "\"subtype\":\"initialize\"")) {
    write_fmt("{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"%s\","
              "\"response\":{\"commands\":[],\"output_style\":\"default\",\"available_output_styles\":[\"default\"],"
              "\"models\":[],\"account\":{},\"pid\":%d}}}\n",
              id, (int)getpid());
  } else {
    write_fmt("{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"%s\",\"response\":{}}}\n",
              id);
  }
}

/*
 * K can_use_tool requests, each sent once the previous answer is in; the delta between writing a
 * request and reading its response is the SDK's whole round trip (read, parse, dispatch, callback,
 * serialize, write), measured on one clock outside the process under test.
 */
static void permission_round_trips(size_t k) {
  uint64_t *samples = calloc(k ? k : 1, sizeof *samples);
  size_t errors = 0;
  for (size_t i = 0; i < k; i++) {
    char want[64];
    snprintf(want, sizeof want, "\"perm-%zu\"", i);
    uint64_t t0 = now_ns();
    write_fmt("{\"type\":\"control_request\",\"request_id\":\"perm-%zu\",\"request\":{\"subtype\":\"can_use_tool\","
              "\"tool_name\":\"Bash\",\"input\":{\"command\":\"echo %zu\"},\"permission_suggestions\":[],"
              "\"tool_use_id\":\"toolu_%zu\"}}\n",
              i, i, i);
    for (;;) {
      char *line = read_line();
      if (!line) exit(0);
      if (strstr(line, "\"control_response\"") && strstr(line, want)) {
        if (!strstr(line, "\"allow\"")) errors++;
        break;
      }
      if (strstr(line, "\"type\":\"control_request\"")) answer_control_request(line);
    }
    samples[i] = now_ns() - t0;
  }
  const char *path = getenv("FAKE_REPORT");
  if (path && *path) {
    FILE *f = fopen(path, "w");
    if (!f) die("open FAKE_REPORT");
    fprintf(f, "{\"k\":%zu,\"notAllowed\":%zu,\"samplesNs\":[", k, errors);
    for (size_t i = 0; i < k; i++) fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)samples[i]);
    fprintf(f, "]}\n");
    fclose(f);
  }
  free(samples);
}

static int run_claude(void) {
  size_t n = env_size("FAKE_N", 1), s = env_size("FAKE_S", 200), k = env_size("FAKE_K", 0);
  size_t repeat = env_size("FAKE_REPEAT", 1);
  size_t batch_len;
  char *batch = build_batch(0, n, s, &batch_len);
  char *line;
  while ((line = read_line())) {
    if (strstr(line, "\"type\":\"control_request\"")) {
      answer_control_request(line);
    } else if (strstr(line, "\"type\":\"user\"")) {
      /* Like the real CLI, each turn opens with system/init, which carries the CLI's version. */
      write_str("{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/\",\"session_id\":\"fake-session\","
                "\"tools\":[],\"mcp_servers\":[],\"model\":\"fake\",\"permissionMode\":\"default\","
                "\"claude_code_version\":\"2.1.330\",\"uuid\":\"00000000-0000-4000-8000-000000000000\"}\n");
      if (k > 0) permission_round_trips(k);
      for (size_t r = 0; r < repeat; r++) write_all(batch, batch_len);
      write_str("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"duration_ms\":1,\"duration_api_ms\":1,"
                "\"num_turns\":1,\"result\":\"done\",\"stop_reason\":\"end_turn\",\"session_id\":\"fake-session\","
                "\"total_cost_usd\":0,\"usage\":{\"input_tokens\":1,\"output_tokens\":1},"
                "\"uuid\":\"00000000-0000-4000-8000-ffffffffffff\"}\n");
    }
    /* control_response to nothing of ours, keep_alive, …: ignored */
  }
  return 0;
}

/* ---- Codex ----------------------------------------------------------------------------------- */

static int run_codex(void) {
  size_t n = env_size("FAKE_N", 1), s = env_size("FAKE_S", 200), repeat = env_size("FAKE_REPEAT", 1);
  size_t batch_len;
  char *batch = build_batch(1, n, s, &batch_len);
  if (!isatty(0)) {
    char sink[65536];
    for (;;) {
      ssize_t r = read(0, sink, sizeof sink);
      if (r == 0) break;
      if (r < 0) {
        if (errno == EINTR) continue;
        break; /* closed or not readable: same as EOF for a prompt we ignore */
      }
    }
  }
  write_str("{\"type\":\"thread.started\",\"thread_id\":\"0199a000-0000-7000-8000-000000000001\"}\n");
  write_str("{\"type\":\"turn.started\"}\n");
  for (size_t r = 0; r < repeat; r++) write_all(batch, batch_len);
  write_str("{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1,\"cached_input_tokens\":0,\"output_tokens\":1}}\n");
  return 0;
}

int main(int argc, char **argv) {
  const char *base = strrchr(argv[0], '/');
  base = base ? base + 1 : argv[0];
  int codex = strncmp(base, "codex", 5) == 0;

  const char *log_path = getenv("FAKE_LOG");
  if (log_path && *log_path) {
    logf_ = fopen(log_path, "a");
    if (logf_) {
      fprintf(logf_, "argv:");
      for (int i = 0; i < argc; i++) fprintf(logf_, " %s", argv[i]);
      fprintf(logf_, "\n");
      fflush(logf_);
    }
  }

  for (int i = 1; i < argc; i++) {
    if (codex && (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V"))) {
      write_str("codex-cli 0.169.0\n");
      return 0;
    }
    if (!codex && (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-v"))) {
      write_str("2.1.330 (Claude Code)\n");
      return 0;
    }
  }
  return codex ? run_codex() : run_claude();
}
