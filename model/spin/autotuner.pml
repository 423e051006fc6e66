/* The reference autotuner's protocol (impl/autotuner.h, impl/bench_lock.h) as a Promela model.
 *
 * What it checks, for NT threads, NK keys and NC configs (defaults 3, 2, 2), every interleaving:
 *   safety (pan compiled with -DNOCLAIM; assertions and invalid end states):
 *     A1 at most one attempt per key is in flight                                    (rule R2)
 *     A2 no attempt begins after a success on its key unless an invalidate came between (R3)
 *     A3 every launch is a config that was published at some moment of its call     (R5, R6)
 *     A4 a call that ends with TuningFailed was open while an attempt on its key failed (R8)
 *     A5 re-entry never waits: no thread ever waits on an attempt it owns            (R9)
 *     (R11, no wait cycle, is what the invalid-end-state and liveness checks show: nesting goes
 *     in every order, so two owners may each call the other's key, and nothing deadlocks)
 *     A6 the bench lock is dropped only by its holder, and the key states stay consistent
 *     no invalid end state: every thread ends, i.e. nothing deadlocks               (R7)
 *   liveness (pan -a -f, weak fairness): the LTL claim `returns`: every call eventually returns.
 *
 * What it models, as the code does it:
 *   - per key: state Cold/Tuning/Tuned, the published winner (read lock-free on the fast path),
 *     the attempt in flight (owner, done, winner; waiters keep their attempt, as the shared_ptr
 *     does), the key mutex and its condition variable;
 *   - the condition variable: wait releases the mutex and joins the wait set; a thread leaves it
 *     when notified or spuriously (at most SPURIOUS spurious wake-ups in a run, all threads
 *     together, so that the liveness check is not defeated by a scheduler that wakes a thread
 *     spuriously forever);
 *     then it takes the mutex again and re-checks `done`, as the while loop in wait_for does;
 *   - the owner benches every config in order under the per-device bench lock; each bench may
 *     fail; the winner is any successful config (timings are abstracted: every argmin is
 *     possible); all failed: the key goes back to Cold, waiters get the error, later calls retry;
 *   - publication then notify_all, under the key lock, in finish_attempt;
 *   - the bench lock: re-entrant for its holder; a thread about to wait on another thread's
 *     attempt gives up all its holds (BenchLockYield) and takes them back when its call ends;
 *   - inside a benchmark (bench lock held), the kernel may call an autotuner once: the same key
 *     (re-entry: ReentrantTuning, which fails that bench) or the other key (nested tuning, which
 *     may wait or own), from either key. Nesting depth is bounded to 1;
 *   - the wait graph (impl/wait_graph.h): before a call waits it follows the waits from the
 *     attempt's owner; if they lead back to itself it does not wait (TuningCycle, which fails
 *     that bench), else it enters its wait; an attempt's end removes the waits on it. The
 *     graph's mutex is taken inside the key lock, so each use is part of that atomic step;
 *   - invalidate: Tuned -> Cold under the key lock; no effect on Cold or Tuning.
 * The bounded scope (the defaults): each thread makes OPS = 1 top-level operation: thread 0 calls
 *   key 0; threads 1 and 2 call key 0 or key 1; thread 2 may instead invalidate key 0 or key 1.
 *   Only the first bench of a depth-0 attempt may call the autotuner, the same key or the other
 *   one (see NESTED_CALL). Every bench may fail. This covers: two waiters on one attempt, a retry
 *   after a failed attempt, an invalidate then a new attempt, re-entry, a nested attempt that
 *   waits on, or races with, another thread's attempt under the bench lock, and two owners whose
 *   benchmarks call each other's key (a wait cycle, answered).
 * Each key-lock critical section is one atomic step: the mutex excludes every other section on
 *   that key, and the only state read without it (the published winner) is written by one store
 *   inside a section, so splitting a section would add interleavings nobody can observe.
 * Not modelled: the fallback policies (wait and re-entry), hooks outside the benchmark, hash-map
 *   insertion (impl/autotuner_key_index.h), the C++ memory model (Relacy's job), exceptions other
 *   than a failed bench.
 *
 * Mutations (spin -a -DMUTATION_X): each is one broken subject, and each must make pan fail.
 *   MUTATION_NOTIFY_ONE              notify_one instead of notify_all: a lost wake-up
 *   MUTATION_NO_WAKE_ON_FAILURE      a failed attempt does not notify its waiters
 *   MUTATION_NO_INFLIGHT_MARKER      check-then-act: a cold key is not marked Tuning
 *   MUTATION_NONREENTRANT_BENCH_LOCK the bench lock blocks its own holder: nested tuning hangs
 *   MUTATION_NO_BENCH_LOCK_YIELD     a waiter keeps its bench-lock holds while it waits
 *   MUTATION_REENTRY_WAITS           a same-key re-entry waits for its own attempt (it skips
 *                                    the wait graph too, which would see a cycle of one)
 *   MUTATION_INVALIDATE_IN_FLIGHT    invalidate makes a Tuning key Cold
 *   MUTATION_NO_CLAIM                not a broken subject: the LTL claim deleted (check.sh must fail)
 *   MUTATION_NO_CYCLE_CHECK          no wait graph: two owners, each in the other key's
 *                                    benchmark, wait for each other for ever
 */

#define NT 3          /* threads (MUTATION_NOTIFY_ONE's wait-set bits assume 3) */
#define NK 2          /* keys (the nested call uses "the other key": NK must stay 2) */
#define NC 2          /* configs per kernel */
#ifndef OPS
#define OPS 1         /* top-level operations per thread: a call or an invalidate */
#endif
#ifndef SPURIOUS
#define SPURIOUS 1    /* spurious wake-ups allowed in a run */
#endif
#define MAXATT 6      /* attempts per key that the pools below hold (checked, never wrapped) */
#define NONE 255

#define COLD   0
#define TUNING 1
#define TUNED  2

/* What a call on a not-yet-tuned key does (Route in impl/autotuner.h). */
#define R_NONE      0
#define R_LAUNCH    1
#define R_OWN       2
#define R_FAIL      3
#define R_REENTRANT 4
#define R_WAIT      5

#define BIT(i) (1 << (i))
#define SLOT(d) (me * 2 + (d))     /* a thread's open call at nesting depth d */

/* ---- the autotuner's per-key state (KeyEntry) -------------------------------------------- */
byte state[NK];              /* COLD, TUNING, TUNED; guarded by mtx[k] */
byte winner[NK] = NONE;      /* the published winner; the only state read without the lock */
byte inflight[NK];           /* entry.attempt: the attempt id in flight, 0 = null */
byte begun[NK];              /* entry.attempts_begun */
byte mtx[NK] = NONE;         /* the key mutex: its holder, or NONE */
byte cvw[NK];                /* the condition variable's wait set: one bit per thread */

/* ---- the wait graph (WaitGraph): the key and attempt each thread waits on ------------------ */
byte w_key[NT] = NONE;       /* NONE: the thread waits on nothing */
byte w_aid[NT];

/* The Attempt objects, by key and id (1..MAXATT-1): waiters keep the id of theirs. */
byte a_owner[NK * MAXATT];
bool a_done[NK * MAXATT];
byte a_win[NK * MAXATT];     /* NONE: the attempt failed */
#define ATT(k, id) ((k) * MAXATT + (id))

/* ---- the per-device bench lock (BenchLock) ------------------------------------------------ */
byte bl_holder = NONE;
byte bl_depth;

/* ---- ghost state for the assertions (not part of the protocol) ---------------------------- */
byte g_tuning[NK];           /* attempts in flight now (A1) */
bool g_success[NK];          /* a success with no invalidate since (A2) */
byte g_key[NT * 2] = NONE;   /* the key of each open call, by SLOT */
byte g_valid[NT * 2];        /* configs published at some moment of that call (A3) */
bool g_failed[NT * 2];       /* an attempt on its key failed during that call (A4) */
byte finished;               /* threads that have returned from all their operations */
byte spur = SPURIOUS;        /* spurious wake-ups left, for all threads together */

/* ---- the bench lock ------------------------------------------------------------------------ */
/* BenchLock::reacquire(n): blocks until the lock is free or already ours. */
#ifdef MUTATION_NONREENTRANT_BENCH_LOCK
#define BL_AVAILABLE (bl_depth == 0)
#else
#define BL_AVAILABLE (bl_depth == 0 || bl_holder == me)
#endif
inline bl_take(n) {
  atomic { BL_AVAILABLE -> bl_holder = me; bl_depth = bl_depth + n }
}

inline bl_drop() {
  atomic {
    assert(bl_holder == me && bl_depth > 0);   /* A6 */
    bl_depth--;
    if
    :: bl_depth == 0 -> bl_holder = NONE
    :: else -> skip
    fi
  }
}

/* BenchLockYield::release(), inside a key-lock section: never blocks. */
inline bl_yield(d) {
#ifdef MUTATION_NO_BENCH_LOCK_YIELD
  skip
#else
  if
  :: bl_holder == me -> rel[d] = rel[d] + bl_depth; bl_depth = 0; bl_holder = NONE
  :: else -> skip
  fi
#endif
}

/* ~BenchLockYield: takes the holds back when the call ends. */
inline bl_unyield(d) {
  if
  :: rel[d] > 0 -> bl_take(rel[d]); rel[d] = 0
  :: else -> skip
  fi
}

/* ---- ghost bookkeeping ---------------------------------------------------------------------- */
/* Marks, for every open call on key k, that config c was published (c == NONE: a failure). */
inline ghost_outcome(k, c) {
  g_i = 0;
  do
  :: g_i < NT * 2 ->
     if
     :: g_key[g_i] == k && c != NONE -> g_valid[g_i] = g_valid[g_i] | BIT(c)
     :: g_key[g_i] == k && c == NONE -> g_failed[g_i] = true
     :: else -> skip
     fi;
     g_i++
  :: else -> g_i = 0; break
  od
}

/* A6: the key states agree with the published winner whenever no section is open. */
inline check_consistent() {
  assert(mtx[0] != NONE || (state[0] == TUNED) == (winner[0] != NONE));
  assert(mtx[1] != NONE || (state[1] == TUNED) == (winner[1] != NONE))
}

/* Opens a call (used inside an atomic step). */
inline call_begin(d) {
  g_key[SLOT(d)] = key[d];
  g_valid[SLOT(d)] = (winner[key[d]] != NONE -> BIT(winner[key[d]]) : 0);
  g_failed[SLOT(d)] = false
}

/* Closes a call and clears its locals, so that finished calls do not tell states apart. */
inline call_end(d) {
  g_key[SLOT(d)] = NONE; g_valid[SLOT(d)] = 0; g_failed[SLOT(d)] = false;
  key[d] = 0; route[d] = R_NONE; aid[d] = 0; res[d] = 0;
  if
  :: d == 0 -> ok[0] = false   /* a nested call's ok[1] is read, then cleared, by NESTED_END */
  :: else -> skip
  fi;
  check_consistent()
}

/* The call's real launch of config res[d]: it must have been published during the call (A3). */
inline launch(d) {
  assert(g_valid[SLOT(d)] & BIT(res[d]));
  ok[d] = true
}

/* ---- the protocol ---------------------------------------------------------------------------- */
/* route() under the key lock: begin an attempt, launch the winner, re-enter, or wait. */
inline route_locked(d) {
  mtx[key[d]] == NONE -> mtx[key[d]] = me;
  if
  :: state[key[d]] == COLD -> begin_attempt(d)
  :: state[key[d]] == TUNED -> res[d] = winner[key[d]]; route[d] = R_LAUNCH
  :: state[key[d]] == TUNING ->
     aid[d] = inflight[key[d]];
     if
#ifdef MUTATION_REENTRY_WAITS
     :: a_owner[ATT(key[d], aid[d])] == me -> bl_yield(d); wait_check(d)  /* past the graph too */
#else
     :: a_owner[ATT(key[d], aid[d])] == me -> route[d] = R_REENTRANT
#endif
     :: else ->
        cycle_check(d);
        if
        :: route[d] != R_REENTRANT -> bl_yield(d); wait_check(d)
        :: else -> skip
        fi
     fi
  fi;
  if
  :: route[d] != R_WAIT -> mtx[key[d]] = NONE
  :: else -> skip
  fi
}

inline begin_attempt(d) {
  assert(!g_success[key[d]]);   /* A2 */
  assert(g_tuning[key[d]] == 0); /* A1 */
  g_tuning[key[d]]++;
  begun[key[d]]++;
  assert(begun[key[d]] < MAXATT);  /* a bound of the model, not of the protocol */
  aid[d] = begun[key[d]];
  a_owner[ATT(key[d], aid[d])] = me;
#ifndef MUTATION_NO_INFLIGHT_MARKER
  inflight[key[d]] = aid[d];
  state[key[d]] = TUNING;
#endif
  route[d] = R_OWN
}

/* WaitGraph::wait_unless_cycle: follow the waits from the attempt's owner; back at me, the wait
 * would close a cycle and the call gets the re-entry answer (R_REENTRANT: TuningCycle). The graph
 * never holds a cycle, so the walk ends within NT steps. */
inline cycle_check(d) {
#ifndef MUTATION_NO_CYCLE_CHECK
  walk = a_owner[ATT(key[d], aid[d])];
  do
  :: walk == me -> route[d] = R_REENTRANT; break
  :: walk != me && w_key[walk] == NONE -> w_key[me] = key[d]; w_aid[me] = aid[d]; break
  :: walk != me && w_key[walk] != NONE -> walk = a_owner[ATT(w_key[walk], w_aid[walk])]
  od;
  walk = 0
#else
  skip
#endif
}

/* WaitGraph::attempt_finished: the waits on this attempt are over. */
inline unwait(k, id) {
  walk = 0;
  do
  :: walk < NT ->
     if
     :: w_key[walk] == k && w_aid[walk] == id -> w_key[walk] = NONE; w_aid[walk] = 0
     :: else -> skip
     fi;
     walk++
  :: else -> walk = 0; break
  od
}

/* One turn of `while (!attempt->done) cv.wait(lock)`, with the key lock held. On R_WAIT it
 * leaves the thread in the wait set with the mutex released. */
inline wait_check(d) {
  assert(a_owner[ATT(key[d], aid[d])] != me);   /* A5: re-entry never waits */
  if
  :: a_done[ATT(key[d], aid[d])] ->
     res[d] = a_win[ATT(key[d], aid[d])];
     route[d] = (res[d] == NONE -> R_FAIL : R_LAUNCH)
  :: else ->
     route[d] = R_WAIT;
     cvw[key[d]] = cvw[key[d]] | BIT(me);
     mtx[key[d]] = NONE
  fi
}

/* Woken by a notify (our bit cleared) or spuriously, then the mutex again, then re-check. */
inline wait_loop(d) {
  do
  :: route[d] == R_WAIT ->
     if
     :: atomic { (cvw[key[d]] & BIT(me)) == 0 -> skip }
     :: atomic { spur > 0 -> spur--; cvw[key[d]] = cvw[key[d]] & ~BIT(me) }
     fi;
     atomic {
       mtx[key[d]] == NONE -> mtx[key[d]] = me;
       wait_check(d);
       if
       :: route[d] != R_WAIT -> mtx[key[d]] = NONE
       :: else -> skip
       fi
     }
  :: else -> break
  od
}

/* finish_attempt: publish the winner (or the failure) and wake the waiters, under the key lock. */
inline finish_attempt(d) {
  atomic {
    mtx[key[d]] == NONE -> mtx[key[d]] = me;
    if
    :: res[d] != NONE ->
       winner[key[d]] = res[d]; state[key[d]] = TUNED; g_success[key[d]] = true
    :: else -> state[key[d]] = COLD
    fi;
    ghost_outcome(key[d], res[d]);
    a_win[ATT(key[d], aid[d])] = res[d];
    a_done[ATT(key[d], aid[d])] = true;
    inflight[key[d]] = 0;
    g_tuning[key[d]]--;
    unwait(key[d], aid[d]);
    notify(d);
    mtx[key[d]] = NONE;
    route[d] = (res[d] != NONE -> R_LAUNCH : R_FAIL)
  }
}

inline notify(d) {
#if defined(MUTATION_NOTIFY_ONE)
  if
  :: cvw[key[d]] & BIT(0) -> cvw[key[d]] = cvw[key[d]] & ~BIT(0)
  :: cvw[key[d]] & BIT(1) -> cvw[key[d]] = cvw[key[d]] & ~BIT(1)
  :: cvw[key[d]] & BIT(2) -> cvw[key[d]] = cvw[key[d]] & ~BIT(2)
  :: cvw[key[d]] == 0 -> skip
  fi
#elif defined(MUTATION_NO_WAKE_ON_FAILURE)
  if
  :: res[d] != NONE -> cvw[key[d]] = 0
  :: else -> skip
  fi
#else
  cvw[key[d]] = 0
#endif
}

/* The outcome of one bench of config c[d]: it fails, or it succeeds and may be the fastest so
 * far (timings are abstracted: a success may or may not beat the current winner). */
#define BENCH_RESULT(d)                                                            \
  if                                                                              \
  :: ok[d] -> if                                                                  \
              :: res[d] = c[d]                                                    \
              :: res[d] != NONE                                                   \
              fi                                                                  \
  :: skip                                                                         \
  fi

/* One bench (measure() in impl/autotuner.h): the measurement runs under the bench lock. A bench
 * that calls no autotuner is one step: while it holds the lock nothing else can happen that
 * another thread could observe. NESTED adds the options of a benchmark that calls one. */
#define BENCH(d, NESTED)                                                           \
  if                                                                              \
  :: atomic { bl_take(1); ok[d] = true; BENCH_RESULT(d); bl_drop() }              \
  NESTED                                                                          \
  fi

/* run_attempt: bench configs in order, then publish; res[d] is the winner or NONE. */
#define RUN_ATTEMPT(d, NESTED)                                                     \
  res[d] = NONE; c[d] = 0;                                                        \
  do                                                                              \
  :: c[d] < NC -> BENCH(d, NESTED); c[d]++                                        \
  :: else -> c[d] = 0; break                                                      \
  od;                                                                             \
  finish_attempt(d)

/* call(): the lock-free fast path, else route under the key lock, then act on the route. The
 * owner's finish_attempt turns its route into R_LAUNCH or R_FAIL. The last step ends the call:
 * the launch or the error, then ~BenchLockYield (which may block), then the bookkeeping. */
#define CALL(d, NESTED)                                                            \
  atomic { call_begin(d); res[d] = winner[key[d]] /* the acquire load */ };       \
  if                                                                              \
  :: res[d] != NONE -> route[d] = R_LAUNCH                                        \
  :: else ->                                                                      \
     atomic { route_locked(d) };                                                  \
     wait_loop(d);                                                                \
     if                                                                           \
     :: route[d] == R_OWN -> RUN_ATTEMPT(d, NESTED)                               \
     :: else -> skip                                                              \
     fi                                                                           \
  fi;                                                                             \
  atomic {                                                                        \
    if                                                                            \
    :: route[d] == R_LAUNCH -> launch(d)                                          \
    :: route[d] == R_FAIL -> assert(g_failed[SLOT(d)]); ok[d] = false  /* A4 */   \
    :: route[d] == R_REENTRANT -> ok[d] = false                                   \
    fi;                                                                           \
    bl_unyield(d);                                                                \
    call_end(d)                                                                   \
  }

/* A call made from inside a benchmark (depth 1): it makes no further calls. An inline, not a
 * macro, because the preprocessor does not expand CALL inside CALL. */
inline call_inner() {
  CALL(1, skip)
}

/* At depth 0 the benchmark may call the autotuner again: the same key (re-entry) or the other
 * one (nested tuning), from either key, so that two owners may each call the other's key: a
 * cycle of waits, which the wait graph answers (MUTATION_NO_CYCLE_CHECK deadlocks there). */
#define NESTED_CALL                                                                \
  :: c[0] == 0 -> atomic { bl_take(1); key[1] = key[0] }; NESTED_END               \
  :: c[0] == 0 -> atomic { bl_take(1); key[1] = 1 - key[0] }; NESTED_END
/* The nested call, then the bench's own outcome: a failed nested call fails the bench. */
#define NESTED_END                                                                 \
  call_inner();                                                                   \
  atomic { ok[0] = ok[1]; ok[1] = false; BENCH_RESULT(0); bl_drop() }

inline invalidate(k) {
  atomic {
    mtx[k] == NONE -> mtx[k] = me;
#ifdef MUTATION_INVALIDATE_IN_FLIGHT
    if
    :: state[k] != COLD -> winner[k] = NONE; state[k] = COLD; inflight[k] = 0
    :: else -> skip
    fi;
#else
    if
    :: state[k] == TUNED -> winner[k] = NONE; state[k] = COLD
    :: else -> skip
    fi;
#endif
    g_success[k] = false;
    mtx[k] = NONE;
    check_consistent()
  }
}

proctype Thread(byte me) {
  byte key[2], route[2], aid[2], res[2], c[2], rel[2];
  bool ok[2];
  byte op, g_i, walk;
  do
  :: op < OPS ->
     if
     :: key[0] = 0
     :: me > 0 -> key[0] = 1   /* thread 0 calls key 0 only: fewer states, same scenarios */
     fi;
     if
     :: CALL(0, NESTED_CALL)
     :: me == NT - 1 -> invalidate(key[0]); key[0] = 0   /* one thread invalidates */
     fi;
     op++
  :: else -> break
  od;
  finished++
}

init {
  byte i;
  atomic {
    do
    :: i < NT -> run Thread(i); i++
    :: else -> break
    od
  }
}

/* Liveness (pan -a -f: weak fairness): every thread finishes, so every call it makes returns.
 * Calls per thread are bounded, so this is "every call eventually returns" for this scope.
 * MUTATION_NO_CLAIM deletes it: check.sh must then refuse to pass the liveness check, since pan
 * would search for acceptance cycles of no claim and find none. */
#ifndef MUTATION_NO_CLAIM
ltl returns { <> (finished == NT) }
#endif
