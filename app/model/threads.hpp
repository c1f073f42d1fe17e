// Whether the labs have worker threads. The web build has none (threads need cross-origin isolation, which a
// static host cannot give): there the labs' work runs in slices on the page's frames, from the calls the
// panels make each frame (take(), poll()), with the same steps in the same order, so the results are the
// desktop's for the same seed.
#pragma once

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define GELU_NO_THREADS 1
#endif

namespace gelu::app {
/// Without threads: about how many milliseconds of a lab's work (training, a sweep) a frame of the page
/// takes.
inline constexpr int kSliceMs = 8;
}  // namespace gelu::app
