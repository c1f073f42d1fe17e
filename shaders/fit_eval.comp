#version 430
// y[i] = FIT_FN(x[i]) for i < u_n, where FIT_FN is a function made at run time — a designer candidate's GLSL
// export — that the loader provides as the in-memory file fit_candidate.glsl (gelu::gpu::Evaluator::eval_glsl).
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) writeonly buffer Output { float y[]; };
uniform uint u_n;

#include "fit_candidate.glsl"

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < u_n; i += stride) y[i] = FIT_FN(x[i]);
}
