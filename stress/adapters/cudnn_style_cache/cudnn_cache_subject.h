// The adapter: makes the user's BenchmarkCache (benchmark_cache.h) a safetune subject, so that
// `safetune stress --subject cudnn-cache` drives it like the built-in ones.
//
// It is a black-box subject: the cache reports nothing, so the harness records each call, and
// every bench and launch through the Kernel it hands in (SubjectEnvironment::kernel). What the
// adapter maps, one line each:
//   the call's key (inv.key)         -> the cache's key
//   the config space (env.space)     -> the cache's list of algorithms, in order
//   the cache's benchmark callback   -> the harness's pre-bench hook, then env.kernel.benchmark
//   the algorithm the cache chose    -> env.kernel.launch on the caller's stream, and the result
//   Subject::invalidate(key)         -> BenchmarkCache::erase(key)
// The wait and re-entry policies are ignored: this cache has neither, so its scenario is the
// default one (plain calls, block, error).
#pragma once

#include "stress/subjects/subject.h"

namespace example {

// The SubjectInfo to hand to safetune::stress::run_cli: name "cudnn-cache", black-box, listed.
safetune::stress::SubjectInfo cudnn_cache_subject();

}  // namespace example
